#!/bin/bash
# usage: startup.sh BIN ARTIFACT PORT SLUG
bin=$1; art=$2; port=$3; slug=$4
start=$(date +%s.%N)
$bin serve --catalog "$art" --port "$port" > /tmp/serve-$port.log 2>&1 &
pid=$!
until curl -sf -o /dev/null "http://127.0.0.1:$port/api/public/foundry/products/$slug"; do sleep 0.002; done
end=$(date +%s.%N)
sleep 1
rss=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
# a second product, from another block, then RSS
kill $pid; wait $pid 2>/dev/null
python3 -c "print(f'first 200 after {($end-$start):.3f} s, RSS at rest {$rss/1024:.0f} MiB')"
