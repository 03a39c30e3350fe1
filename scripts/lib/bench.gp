# BENCHMARKS.svg from the data files bench_chart (scripts/lib/bench.bash) writes.
# Usage: gnuplot -e "datadir='DIR'; outfile='OUT.svg'" scripts/lib/bench.gp
# DIR/meta.gp sets the titles, the panel sizes and the log-axis range; DIR/{workloads,hits,floor}.dat
# hold one bar per line: y, median, low, high (the whisker: min-max or p10-p90), colour
# (0xRRGGBB as an integer), "label", "value text".
load datadir.'/meta.gp'
set terminal svg size 920, height noenhanced font "DejaVu Sans,11" background rgb "white"
set output outfile
set multiplot
set style fill solid 0.9 noborder
set border 3 lc rgb "#888888"
set tics nomirror textcolor rgb "#222222"
set ytics scale 0
set grid xtics lc rgb "#dddddd" dt 3
unset key
set lmargin at screen 0.36
set rmargin at screen 0.84
bar = 0.36

# Panel 1: workloads, seconds, log scale.
set origin 0, 1 - h1
set size 1, h1
set title title1 font ",13" textcolor rgb "#222222"
set logscale x 10
set xrange [lo:hi]
set format x "%g s"
set yrange [y1min - 0.6 : 0.6]
plot datadir.'/workloads.dat' using 2:1:(lo):2:($1 - bar):($1 + bar):5:ytic(6) with boxxyerror lc rgb variable, \
     '' using 2:1:3:4 with xerrorbars lc rgb "#333333" pt 0 lw 1, \
     '' using ($4 * 1.12):1:7 with labels left font ",10" textcolor rgb "#222222"

# Panel 2: one warm hit per call, milliseconds.
unset logscale x
set origin 0, 1 - h1 - h2
set size 1, h2
set title title2 font ",13"
set xrange [0:x2max]
set format x "%g ms"
set yrange [y2min - 0.6 : 0.6]
plot datadir.'/hits.dat' using 2:1:(0):2:($1 - bar):($1 + bar):5:ytic(6) with boxxyerror lc rgb variable, \
     '' using 2:1:3:4 with xerrorbars lc rgb "#333333" pt 0 lw 1, \
     '' using ($4 + x2max * 0.01):1:7 with labels left font ",10" textcolor rgb "#222222"

# Panel 3: the floor, milliseconds.
set origin 0, 1 - h1 - h2 - h3
set size 1, h3
set title title3 font ",13"
set label 99 footer at screen 0.01, screen 0.015 font ",9" textcolor rgb "#666666"
set xrange [0:x3max]
set yrange [y3min - 0.6 : 0.6]
plot datadir.'/floor.dat' using 2:1:(0):2:($1 - bar):($1 + bar):5:ytic(6) with boxxyerror lc rgb variable, \
     '' using 2:1:3:4 with xerrorbars lc rgb "#333333" pt 0 lw 1, \
     '' using ($4 + x3max * 0.01):1:7 with labels left font ",10" textcolor rgb "#222222"

unset multiplot
