# Colour marks the verdict and severities only with --color=always (or a
# tty without NO_COLOR); the runner sets NO_COLOR=1 and stdout is a file.
esc=$(printf '\033')
echo "default: $(tfprof-analyze torch_input_bound.trace.json.gz | grep -c "$esc")"
echo "never: $(tfprof-analyze --color=never torch_input_bound.trace.json.gz | grep -c "$esc")"
tfprof-analyze --color=always torch_input_bound.trace.json.gz | grep "$esc" | od -c | head -3
