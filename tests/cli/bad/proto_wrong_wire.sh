# Protobuf with wrong wire types. XSpace: a plane whose name (field 2, a
# string) is sent as fixed32. RunMetadata: node_stats (a message) sent as a
# varint. Both exit 3. The XSpace reader walks the wire itself and points at
# the bad field's tag (byte 4); protobuf-c unpacks RunMetadata whole and does
# not say where it went wrong, so that offset is the message's (0).
cd "$TPA_TMP" || exit 99
printf "\012\007\010\001\025\141\142\143\144" > x.xplane.pb
printf "\012\007\012\005\012\001\141\020\005" > r.pb
tfprof-analyze x.xplane.pb; echo "exit $?"
tfprof-analyze r.pb
