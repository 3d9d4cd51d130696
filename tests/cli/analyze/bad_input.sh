tfprof-analyze bad_negative_dur.json
