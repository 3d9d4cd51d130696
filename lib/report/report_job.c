/* SPDX-License-Identifier: MIT */
/*
 * report_job.c - the job view of several ranks as text (at most 100
 * columns) and Markdown: the straggler verdict, ranks with missing steps,
 * the per-step table (straggler, excess over the median rank, spread,
 * class) and the per-rank table (collective time, the wait part of it,
 * comm/compute overlap, launch delay, queue depth). Formats what
 * tpa_job_build() computed; deterministic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tpa/report.h"
#include "report_util.h"

#define MISSING_SHOWN 8         /* step numbers listed per rank */
#define MD_STEPS_SHOWN 100      /* a PR comment holds 65536 characters */
#define MD_RANKS_SHOWN 64

static const char *class_or_dash(const char *c)
{
        return c != NULL ? c : "-";
}

/* Step st's straggler's rank into buf, or "-": it has none. */
static const char *straggler_rank(char *buf, size_t size, const tpa_job *j,
                                  const tpa_job_step *st)
{
        if (st->straggler == TPA_JOB_NONE)
                return "-";
        snprintf(buf, size, "%" PRId64, j->ranks[st->straggler].rank);
        return buf;
}

/* Some step was kept by two ranks or more. */
static bool shared_steps(const tpa_job *j)
{
        for (size_t s = 0; s < j->step_count; s++)
                if (j->steps[s].ranks >= 2)
                        return true;
        return false;
}

static void headline(FILE *fp, const tpa_job *j, const char *bold)
{
        const tpa_rank *r0 = j->ranks[0].r;
        char t[32], head[160], tail[96];

        fprintf(fp, "job: %zu rank%s", j->rank_count, j->rank_count == 1 ? "" : "s");
        if (j->world_size >= 0)
                fprintf(fp, " of world size %" PRId64, j->world_size);
        if (r0->backend != NULL) {
                fputs(" (", fp);
                if (bold[0] != '\0')    /* Markdown */
                        tpa_report__md_escape(fp, r0->backend, 80);
                else
                        tpa_report__put_plain(fp, r0->backend, strlen(r0->backend));
                fputc(')', fp);
        }
        fprintf(fp, ", %zu step%s aligned by step number", j->step_count,
                j->step_count == 1 ? "" : "s");
        /* two inputs of one rank (its reports of two runs or two builds)
         * are no two ranks: said, not taken for a missing number */
        if (j->repeated_rank >= 0)
                fprintf(fp, "; rank %" PRId64 " given twice: ranks numbered by position",
                        j->repeated_rank);
        else if (j->ranks_by_position)
                fprintf(fp, "; ranks numbered by position (no rank numbers)");
        fputc('\n', fp);
        if (j->step_count == 0) {
                fprintf(fp, "%sstraggler:%s none (no step kept by any rank)\n", bold, bold);
                return;
        }
        /* steps that one rank alone kept have no one to straggle against
         * (two stages' traces of one process, taken for ranks, number
         * their steps apart) */
        if (j->top_straggler_steps == 0) {
                fprintf(fp, "%sstraggler:%s none (%s)\n", bold, bold,
                        j->rank_count == 1 ? "one rank"
                        : j->one_after_another
                        ? "the traces ran one after another: runs, not ranks of one job"
                        : shared_steps(j) ? "the ranks were busy alike in every step"
                        : "no step kept by two ranks or more");
                return;
        }
        /* within 100 columns: the figures of the median step on a line
         * of their own when the line would run past */
        snprintf(head, sizeof(head), "rank %" PRId64 " in %zu of %zu steps, %s (+%.1f%%) over "
                 "the median rank", j->ranks[j->top_straggler].rank, j->top_straggler_steps,
                 j->step_count, tpa_report__time(t, sizeof(t), (double)j->excess_median),
                 j->excess_frac_median * 100);
        snprintf(tail, sizeof(tail), "(median step; max +%.1f%%), spread %.2fx",
                 j->excess_frac_max * 100, j->spread_median);
        fprintf(fp, "%sstraggler:%s %s%s%s\n", bold, bold, head,
                strlen("straggler: ") + strlen(head) + 1 + strlen(tail) > 100
                ? "\n           " : " ", tail);
}

/* "rank 3 lacks 2 of 5 steps: 5, 6" for every rank with missing steps. */
static void missing(FILE *fp, const tpa_job *j, const char *indent)
{
        for (size_t r = 0; r < j->rank_count; r++) {
                size_t shown = 0;

                if (j->ranks[r].missing == 0)
                        continue;
                fprintf(fp, "%srank %" PRId64 " lacks %zu of %zu steps:", indent,
                        j->ranks[r].rank, j->ranks[r].missing, j->step_count);
                for (size_t s = 0; s < j->step_count; s++) {
                        if (j->cells[r * j->step_count + s] >= 0)
                                continue;
                        if (shown++ == MISSING_SHOWN) {
                                fputs(" ...", fp);
                                break;
                        }
                        fprintf(fp, "%s %" PRId64, shown > 1 ? "," : "", j->steps[s].number);
                }
                fputc('\n', fp);
        }
}

static void launch_cells(char *p50, char *p90, char *max, size_t size, const tpa_rank *r)
{
        if (r->launch_count == 0) {
                snprintf(p50, size, "n/a");
                snprintf(p90, size, "n/a");
                snprintf(max, size, "n/a");
                return;
        }
        tpa_report__time(p50, size, (double)r->launch_delay_median);
        tpa_report__time(p90, size, (double)r->launch_delay_p90);
        tpa_report__time(max, size, (double)r->launch_delay_max);
}

void tpa_report_job_text(FILE *fp, const tpa_job *j)
{
        char t1[32], t2[32], t3[32], t4[32], who[24];

        headline(fp, j, "");
        missing(fp, j, "  ");
        fprintf(fp, "\nper step (busy = step time less the wait in collectives for other "
                "ranks):\n");
        fprintf(fp, "  %8s %6s %9s %10s %10s %8s %7s  %s\n", "step", "ranks", "straggler",
                "busy med", "excess", "excess", "spread", "straggler class");
        for (size_t s = 0; s < j->step_count; s++) {
                const tpa_job_step *st = &j->steps[s];
                fprintf(fp, "  %8" PRId64 " %6zu %9s %10s %10s %7.1f%% %6.2fx  %s\n",
                        st->number, st->ranks, straggler_rank(who, sizeof(who), j, st),
                        tpa_report__time(t1, sizeof(t1), (double)st->busy_median),
                        tpa_report__time(t2, sizeof(t2), (double)st->excess),
                        st->excess_frac * 100, st->spread, class_or_dash(st->straggler_class));
        }
        fprintf(fp, "\nper rank (over the job steps; launch delay and queue depth as HTA "
                "defines them):\n");
        fprintf(fp, "  %6s %5s %5s %10s %10s %6s %7s %9s %9s %9s %s\n", "rank", "steps",
                "strag", "collective", "wait", "wait", "overlap", "launch50", "launch90",
                "launchmax", "queue");
        for (size_t r = 0; r < j->rank_count; r++) {
                const tpa_job_rank *jr = &j->ranks[r];
                char ov[16], q[32] = "n/a", l50[32], l90[32], lmax[32];
                double qmean = -1;
                int64_t qmax = 0;

                if (jr->overlap_frac >= 0)
                        snprintf(ov, sizeof(ov), "%.1f%%", jr->overlap_frac * 100);
                else
                        snprintf(ov, sizeof(ov), "n/a");
                for (size_t k = 0; k < jr->r->stream_count; k++) {
                        if (jr->r->streams[k].queue_mean > qmean)
                                qmean = jr->r->streams[k].queue_mean;
                        if (jr->r->streams[k].queue_max > qmax)
                                qmax = jr->r->streams[k].queue_max;
                }
                if (qmean >= 0)
                        snprintf(q, sizeof(q), "%.1f/%" PRId64, qmean, qmax);
                launch_cells(l50, l90, lmax, sizeof(l50), jr->r);
                fprintf(fp, "  %6" PRId64 " %5zu %5zu %10s %10s %5.1f%% %7s %9s %9s %9s %s\n",
                        jr->rank, jr->steps, jr->straggler_steps,
                        tpa_report__time(t3, sizeof(t3), (double)jr->collective),
                        tpa_report__time(t4, sizeof(t4), (double)jr->wait),
                        jr->wait_frac * 100, ov, l50, l90, lmax, q);
        }
        for (size_t r = 0; r < j->rank_count; r++) {
                const tpa_rank *rk = j->ranks[r].r;
                if (rk->stream_count == 0)
                        continue;
                fprintf(fp, "  queue depth of rank %" PRId64 " (mean/max):", j->ranks[r].rank);
                for (size_t k = 0; k < rk->stream_count; k++) {
                        fputs(k > 0 ? ", " : " ", fp);
                        tpa_report__put_plain(fp, rk->streams[k].name,
                                              strlen(rk->streams[k].name));
                        fprintf(fp, " %.2f/%" PRId64, rk->streams[k].queue_mean,
                                rk->streams[k].queue_max);
                }
                fputc('\n', fp);
        }
        fprintf(fp, "\nranks:\n");
        for (size_t r = 0; r < j->rank_count; r++) {
                const char *p = j->ranks[r].r->path != NULL ? j->ranks[r].r->path
                                                            : "(unknown)";
                fprintf(fp, "  %6" PRId64 "  ", j->ranks[r].rank);
                tpa_report__put_plain(fp, p, strlen(p));
                fputc('\n', fp);
        }
}

void tpa_report_job_markdown(FILE *fp, const tpa_job *j)
{
        char t1[32], t2[32], t3[32], who[24];

        fputs("## Job: several ranks\n\n", fp);
        headline(fp, j, "**");
        fputc('\n', fp);
        missing(fp, j, "- ");
        fputs("\n<details><summary>Per step</summary>\n\n", fp);
        fputs("| step | ranks | straggler | busy median | excess | excess % | spread | class |\n"
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n", fp);
        for (size_t s = 0; s < j->step_count && s < MD_STEPS_SHOWN; s++) {
                const tpa_job_step *st = &j->steps[s];
                fprintf(fp, "| %" PRId64 " | %zu | %s | %s | %s | %.1f%% | %.2fx | %s |\n",
                        st->number, st->ranks, straggler_rank(who, sizeof(who), j, st),
                        tpa_report__time(t1, sizeof(t1), (double)st->busy_median),
                        tpa_report__time(t2, sizeof(t2), (double)st->excess),
                        st->excess_frac * 100, st->spread, class_or_dash(st->straggler_class));
        }
        if (j->step_count > MD_STEPS_SHOWN)
                fprintf(fp, "\n%zu more steps in the JSON report.\n",
                        j->step_count - MD_STEPS_SHOWN);
        fputs("\n</details>\n\n", fp);
        fputs("| rank | steps | straggler in | collective | wait | wait % | overlap | "
              "launch delay p90 |\n"
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", fp);
        for (size_t r = 0; r < j->rank_count && r < MD_RANKS_SHOWN; r++) {
                const tpa_job_rank *jr = &j->ranks[r];
                char ov[16], l90[32];

                if (jr->overlap_frac >= 0)
                        snprintf(ov, sizeof(ov), "%.1f%%", jr->overlap_frac * 100);
                else
                        snprintf(ov, sizeof(ov), "n/a");
                if (jr->r->launch_count > 0)
                        tpa_report__time(l90, sizeof(l90), (double)jr->r->launch_delay_p90);
                else
                        snprintf(l90, sizeof(l90), "n/a");
                fprintf(fp, "| %" PRId64 " | %zu | %zu | %s | %s | %.1f%% | %s | %s |\n",
                        jr->rank, jr->steps, jr->straggler_steps,
                        tpa_report__time(t1, sizeof(t1), (double)jr->collective),
                        tpa_report__time(t3, sizeof(t3), (double)jr->wait),
                        jr->wait_frac * 100, ov, l90);
        }
        if (j->rank_count > MD_RANKS_SHOWN)
                fprintf(fp, "\n%zu more ranks in the JSON report.\n",
                        j->rank_count - MD_RANKS_SHOWN);
}
