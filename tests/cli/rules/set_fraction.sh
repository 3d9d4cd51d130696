# A threshold declared in % takes a percentage: a bare number is refused
# ("bound.min=30" would be 3000%), as is one above 100%.
for v in 30 0.3 300% 30%; do
        tfprof-analyze --set bound.min=$v kineto_small.json > /dev/null
        echo "bound.min=$v: $?"
done
