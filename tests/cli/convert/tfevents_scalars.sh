# A tfevents file of scalars only (Keras' TensorBoard callback with
# profile_batch=0) holds no profile: convert refuses it as analyze does
# (exit 3), and writes no empty trace
tfprof-analyze convert tf2_logdir/train/events.out.tfevents.1796213903.vm.26413.0.v2 \
        -o "$TPA_TMP/out.json"
echo "exit $?"
ls -A "$TPA_TMP"
