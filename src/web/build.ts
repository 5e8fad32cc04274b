import { join } from "node:path";
import { staticAsset, type StaticAsset } from "../http/static-assets.ts";

/** The browser app's sources: `app/main.tsx` and what it imports (its stylesheet included). */
export const appSourceDir = join(import.meta.dir, "app");

export type WebBuild = {
  /** Every output by its content-hashed file name, served under `/assets/`. */
  assets: ReadonlyMap<string, StaticAsset>;
  /** The entry script and its stylesheets, which the HTML shell names. */
  entry: { script: string; styles: string[] };
  /** How long the build and the compression took, in ms (logged at start-up). */
  ms: number;
};

/**
 * Bundles the app with Bun's own bundler, in memory: minified, split into chunks (a page loaded with
 * `lazy()` is its own file), every name carrying its content's hash, every file compressed once here.
 * Nothing is written to disk and nothing built is committed: the api role builds it when it starts
 * (a few tens of ms), so `npm start` and the image serve the sources they hold.
 */
export async function buildWebApp(): Promise<WebBuild> {
  const started = performance.now();
  const worklet = await buildPcmWorklet();
  const result = await Bun.build({
    entrypoints: [join(appSourceDir, "main.tsx")],
    target: "browser",
    format: "esm",
    splitting: true,
    minify: true,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    // The worklet's URL, which the page hands to audioWorklet.addModule (src/web/app/live/pcm-stream.ts).
    define: { "process.env.NODE_ENV": '"production"', SCRIBE_PCM_WORKLET: JSON.stringify(`/assets/${worklet.name}`) },
    jsx: { runtime: "automatic", importSource: "preact", development: false },
    throw: false,
  });
  if (!result.success) throw new AggregateError(result.logs, `the web app did not build: ${result.logs.map(String).join("; ")}`);
  const assets = new Map<string, StaticAsset>([[worklet.name, worklet.asset]]);
  let script = "";
  const styles: string[] = [];
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    assets.set(name, staticAsset(new Uint8Array(await output.arrayBuffer()), output.type.replace(";charset=", "; charset=")));
    if (output.kind === "entry-point") script = name;
    else if (name.endsWith(".css")) styles.push(name);
  }
  return { assets, entry: { script, styles }, ms: Math.round(performance.now() - started) };
}

/**
 * The live captions' AudioWorklet (src/web/app/live/pcm-worklet.ts), bundled on its own: a worklet is a module the
 * browser fetches by URL into the audio thread's scope, so it shares no chunk with the page.
 */
async function buildPcmWorklet(): Promise<{ name: string; asset: StaticAsset }> {
  const result = await Bun.build({
    entrypoints: [join(appSourceDir, "live", "pcm-worklet.ts")],
    target: "browser",
    format: "esm",
    minify: true,
    naming: "[name]-[hash].[ext]",
    throw: false,
  });
  const [output] = result.outputs;
  if (!result.success || !output) throw new AggregateError(result.logs, `the PCM worklet did not build: ${result.logs.map(String).join("; ")}`);
  const asset = staticAsset(new Uint8Array(await output.arrayBuffer()), output.type.replace(";charset=", "; charset="));
  return { name: output.path.replace(/^\.\//, ""), asset };
}
