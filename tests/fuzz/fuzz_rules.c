/* SPDX-License-Identifier: MIT */
/*
 * fuzz_rules.c - libFuzzer target: the rule language (lib/rules/). The input
 * is loaded as a rule file on top of the default rules; if it loads, every
 * class and finding is evaluated against metrics that take awkward values
 * (0, negative, huge, NaN) and the messages are rendered. The input is also
 * tried as a --fail-if expression and as a --set NAME=VALUE.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/rules.h>

#define FUZZ_ASSERT(cond)                                                             \
        do {                                                                          \
                if (!(cond)) {                                                        \
                        fprintf(stderr, "%s:%d: broken contract: %s\n", __FILE__,     \
                                __LINE__, #cond);                                     \
                        abort();                                                      \
                }                                                                     \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every metric exists; its value depends on its name, so different rules
 * see different values in one run. */
static bool metric(void *ctx, const char *name, size_t len, double *out)
{
        static const double values[] = { 0.0, 0.25, 0.5, 1.0, 3.0, -1.0, 1e300, -1e300,
                                         1e-300, 4e18 };
        uint32_t h = 2166136261u;

        (void)ctx;
        for (size_t i = 0; i < len; i++)
                h = (h ^ (uint8_t)name[i]) * 16777619u;
        if (h % 11 == 10)
                *out = NAN;
        else
                *out = values[h % 10];
        return true;
}

static void check_error(int r, const tpa_error *err, bool needs_column)
{
        FUZZ_ASSERT(r == err->code);
        FUZZ_ASSERT(r == TPA_ERULE || r == TPA_ENOMEM || r == TPA_EINVAL);
        FUZZ_ASSERT(err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL);
        if (needs_column && r == TPA_ERULE)
                FUZZ_ASSERT(err->column >= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *rules;
        const char *cls;
        tpa_finding *found = NULL;
        size_t count = 0, lines = 1;
        char *text;
        double v;
        int r;

        if (size > 65536)
                return 0;
        if (tpa_rules_new_default(&rules, &err) < 0)
                abort();                /* the shipped rules must always load */
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        r = tpa_rules_load_string(rules, (const char *)data, size, "fuzz.tpr", &err);
        if (r < 0) {
                check_error(r, &err, true);
                if (r == TPA_ERULE)
                        FUZZ_ASSERT(err.line >= 1 && err.line <= lines);
        }
        err = (tpa_error)TPA_ERROR_INIT;
        r = tpa_rules_classify(rules, metric, NULL, &cls, &err);
        if (r < 0)
                check_error(r, &err, false);
        else
                FUZZ_ASSERT(cls != NULL && cls[0] != '\0');
        err = (tpa_error)TPA_ERROR_INIT;
        r = tpa_rules_findings(rules, metric, NULL, &found, &count, &err);
        if (r < 0) {
                check_error(r, &err, false);
        } else {
                for (size_t i = 0; i < count; i++) {
                        FUZZ_ASSERT(memchr(found[i].name, '\0', sizeof(found[i].name)));
                        FUZZ_ASSERT(memchr(found[i].message, '\0', sizeof(found[i].message)));
                }
                free(found);
        }
        for (size_t i = 0; i < tpa_rules_class_count(rules); i++)
                FUZZ_ASSERT(tpa_rules_class_name(rules, i) != NULL);

        text = malloc(size + 1);
        if (text != NULL) {
                memcpy(text, data, size);
                text[size] = '\0';
                err = (tpa_error)TPA_ERROR_INIT;
                r = tpa_rules_eval(rules, text, metric, NULL, &v, &err);
                if (r < 0)
                        check_error(r, &err, false);
                /* As --set: an argument of one line. (A newline in it ends
                 * up in the message, which is then not one line.) */
                text[strcspn(text, "\n")] = '\0';
                err = (tpa_error)TPA_ERROR_INIT;
                r = tpa_rules_set_threshold(rules, text, &err);
                if (r < 0)
                        check_error(r, &err, false);
                free(text);
        }
        tpa_rules_free(rules);
        return 0;
}
