// Builds the single-page app into dist/: hashed file names under assets/ (served immutable by src/service.ts), no
// inline script (the CSP has no 'unsafe-inline'). `vite` (dev) proxies /api to the gateway of ./dev up.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    // The module preload polyfill is an inline-free module too, but modern browsers need none.
    modulePreload: { polyfill: false },
    // ECharts is its own chunk, loaded only by a page that draws a chart (app/chart.tsx): about 530 KB raw, 180 KB
    // gzipped. The first page's budget (300 KB gzipped, bench/ui.ts) is what matters, not this chunk's size.
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { "/api": { target: process.env.GATEWAY_URL ?? "http://127.0.0.1:8081", ws: true } } },
});
