/**
 * The files the HTML report inlines: uPlot's IIFE build and stylesheet (node_modules/uplot, MIT).
 * The ONLY module of cli/reports that reads files: the single-file CLI bundle replaces it at
 * bundle time with one that answers the same strings from the bundle, so nothing else may read
 * files for the reports. Read once, then cached.
 */
import fs from 'node:fs';

let cached: { uplotJs: string; uplotCss: string } | undefined;

/** uPlot's script (`uPlot.iife.min.js`, defines the global `uPlot`) and stylesheet (`uPlot.min.css`). */
export function reportAssets(): { uplotJs: string; uplotCss: string } {
  cached ??= {
    uplotJs: fs.readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    uplotCss: fs.readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
  return cached;
}
