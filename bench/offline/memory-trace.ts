// Preloaded into each portal process by bench/findings-at-scale.ts when BENCH_MEMORY_TRACE=1 (NODE_OPTIONS=--import):
// a line on stderr, in the process's log, each time its resident memory moved by 16 MiB or more since the last line,
// with V8's heap and the memory outside it (Buffers and other external allocations): where a peak came from.
const MIB = 2 ** 20;
let last = 0;
const started = Date.now();
setInterval(() => {
  const u = process.memoryUsage();
  if (Math.abs(u.rss - last) < 16 * MIB) return;
  last = u.rss;
  const mib = (n: number) => Math.round(n / MIB);
  process.stderr.write(
    `memory-trace ${JSON.stringify({
      s: (Date.now() - started) / 1000,
      rss: mib(u.rss),
      heapTotal: mib(u.heapTotal),
      heapUsed: mib(u.heapUsed),
      external: mib(u.external),
      arrayBuffers: mib(u.arrayBuffers),
    })}\n`,
  );
}, 100).unref();
