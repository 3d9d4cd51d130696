# two inputs taken for ranks whose steps share no number (two stages'
# traces of one process, say): no step to compare, so no straggler
tfprof-analyze --ranks tf1_step1.runmeta.pb torch_host_bound.trace.json.gz |
        grep -e '^job' -e '^straggler' -e 'lacks'
