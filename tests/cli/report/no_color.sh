# No colour escapes unless asked for: not on a pipe, not with NO_COLOR set,
# not in machine formats even with --color=always.
tfprof-analyze torch_input_bound.trace.json.gz | grep -c "$(printf '\033')" 
NO_COLOR=1 tfprof-analyze --color=auto torch_input_bound.trace.json.gz | grep -c "$(printf '\033')"
tfprof-analyze --color=always --format json torch_input_bound.trace.json.gz | grep -c "$(printf '\033')"
exit 0
