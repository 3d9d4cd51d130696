# A --step-marker that matches no event is a warning naming the pattern, on
# stderr and in the report, never a silent fallback: the trace's own
# markers (ProfilerStep#N) give the steps.
tfprof-analyze --step-marker '^no_such_event$' kineto_small.json | grep -E '^steps|NOTE'
tfprof-analyze --format json --step-marker '^no_such_event$' kineto_small.json | grep '"step_note"'
