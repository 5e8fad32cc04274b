// Live decoders opened at once on their threads: PocketSphinx's `-logfn` once made each open the process's log file
// and close the previous one, unguarded, so two sessions opening together closed one FILE twice, and the C library's
// list of open files went round in a circle (the next fopen spun for ever: a hung test run). Now the library's log is
// off process-wide: rounds of decoders opened and closed together finish, and the library writes nothing to stderr.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { bunBinary } from "../support/service-process.ts";
import { sphinxPrerequisite } from "../support/sphinx-prerequisite.ts";

const model = "/usr/share/pocketsphinx/model/en-us";
const hasSphinx = sphinxPrerequisite(
  "PocketSphinx's library and en-us model",
  existsSync(`${model}/en-us.lm.bin`),
  "apt-get install pocketsphinx-en-us libpocketsphinx3",
);

test.if(hasSphinx)(
  "rounds of live decoders opened and closed at once finish, and the library writes nothing to stderr",
  async () => {
    const engine = new URL("../../src/live/engines/sphinx-stream.ts", import.meta.url).pathname;
    const script = `
    import { SphinxStreamingEngine } from ${JSON.stringify(engine)};
    import { mkdtempSync } from "node:fs";
    const m = ${JSON.stringify(model)};
    const e = new SphinxStreamingEngine({ binary: "pocketsphinx_continuous", hmm: m + "/en-us", lm: m + "/en-us.lm.bin", dict: m + "/cmudict-en-us.dict", vocabularyCacheDir: mkdtempSync("/tmp/scribe-concurrent-open-") });
    for (let round = 0; round < 3; round++) {
      const open = await Promise.all(Array.from({ length: 4 }, () => e.open({ language: null, vocabulary: [] })));
      for (const r of open) r.push(new Int16Array(1600));
      await Promise.all(open.map((r) => r.partial()));
      for (const r of open) r.close();
    }
    console.log("done");
    process.exit(0);`;
    const child = Bun.spawn([bunBinary, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const killer = setTimeout(() => child.kill(9), 50_000);
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    clearTimeout(killer);
    expect({ code, stdout: stdout.trim(), stderr: stderr.trim() }).toEqual({ code: 0, stdout: "done", stderr: "" });
  },
  // Past bun's 5 s default (bun 1.4.5 ignores bunfig's timeout outside npm test): on two busy cores the rounds take 4-5 s.
  60_000,
);
