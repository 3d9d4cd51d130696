# A tfevents file of scalars only is no profile: an error (exit 3) that says
# so, not an empty report.
tfprof-analyze tf2_logdir/train/events.out.tfevents.1796213903.vm.26413.0.v2
