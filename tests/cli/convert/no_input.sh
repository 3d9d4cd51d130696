tfprof-analyze convert -o out.json
