# check --format json and markdown, for a CI job to post: the same
# conditions and figures as the text, and the same exit status.
tfprof-analyze check torch_compute_bound.trace.json.gz --baseline torch_host_bound.trace.json.gz \
        --fail-if 'input_frac > 20%' --fail-on input-bound --format markdown
echo "markdown: $?"
tfprof-analyze check torch_compute_bound.trace.json.gz --baseline torch_host_bound.trace.json.gz \
        --fail-if 'input_frac > 20%' --fail-on input-bound --format json
echo "json: $?"
