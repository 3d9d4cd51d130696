# A tfevents file whose second record has a bad data crc: exit 3 with the
# offset of that record's data (40 + 12). The first record is the usual
# file_version Event with right crcs; the second, Event{wall_time 2.0,
# step 5}, has its data crc off by one bit. Bytes made by tests/fuzz/make_seeds.py's record().
cd "$TPA_TMP" || exit 99
printf "\030\000\000\000\000\000\000\000\243\177\113\042\011\000\000\000\000\000\000\360\077\032\015\142\162\141\151\156\056\105\166\145\156\164\072\062\206\277\127\172" > e.tfevents
printf "\013\000\000\000\000\000\000\000\206\025\365\004\011\000\000\000\000\000\000\000\100\020\005\167\244\345\045" >> e.tfevents
tfprof-analyze e.tfevents
