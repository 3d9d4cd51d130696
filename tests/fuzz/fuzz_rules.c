/* SPDX-License-Identifier: MIT */
/*
 * fuzz_rules.c - libFuzzer target: the rule language (lib/rules). Any bytes
 * loaded on top of the default set must either load, or fail with
 * TPA_ERULE at a 1-based line:column and a message of one line of UTF-8;
 * a set that loaded must classify and list findings without crashing,
 * whatever the metrics say. Not wired into
 * meson here (tests/fuzz/meson.build owns that); seeds: rules/default.tpr.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <tpa/tpa.h>

#include "model/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every metric is 0.25: enough to make most conditions hold. */
static bool any_metric(void *ctx, const char *name, size_t len, double *out)
{
        (void)ctx;
        (void)name;
        (void)len;
        *out = 0.25;
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_rules *r = NULL;
        tpa_finding *f = NULL;
        const char *cls = NULL;
        size_t n = 0;
        int rc;

        if (tpa_rules_new_default(&r, &err) < 0)
                return 0;
        rc = tpa_rules_load_string(r, (const char *)data, size, "fuzz", &err);
        if (rc < 0) {
                assert(rc == TPA_ERULE || rc == TPA_ENOMEM);
                assert(rc != TPA_ERULE || (err.line > 0 && err.column > 0));
                assert(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
                /* one line of UTF-8, whatever the rules quoted in it */
                assert(strchr(err.msg, '\n') == NULL &&
                       tpa_utf8__valid_prefix(err.msg, strlen(err.msg)) == strlen(err.msg));
        } else {
                if (tpa_rules_classify(r, any_metric, NULL, &cls, &err) == 0)
                        assert(cls != NULL && cls[0] != '\0');
                if (tpa_rules_findings(r, any_metric, NULL, &f, &n, &err) == 0)
                        for (size_t i = 0; i < n; i++)
                                assert(f[i].message != NULL &&
                                       strlen(f[i].message) < TPA_FINDING_MESSAGE_MAX);
                free(f);
        }
        /* The same bytes as one expression. */
        {
                char *expr = malloc(size + 1);
                double v;

                if (expr != NULL) {
                        memcpy(expr, data, size);
                        expr[size] = '\0';
                        tpa_rules_eval(r, expr, any_metric, NULL, &v, &err);
                        free(expr);
                }
        }
        tpa_rules_free(r);
        return 0;
}
