# A tfevents file of scalars only (Keras' TensorBoard callback with
# profile_batch=0) holds no profile: nothing to gate on, exit 3.
tfprof-analyze check -q tf2_logdir/train/events.out.tfevents.1796213903.vm.26413.0.v2 --fail-on input-bound
