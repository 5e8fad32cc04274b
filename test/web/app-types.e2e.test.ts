/**
 * The browser app type-checks with its own settings (the DOM, JSX: src/web/app/tsconfig.json), which the
 * service's `tsc -p .` leaves out; `npm run typecheck` runs both.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

test("src/web/app type-checks (tsc, strict, with the generated API types)", async () => {
  const root = join(import.meta.dir, "../..");
  const tsc = Bun.spawn([join(root, "node_modules/.bin/tsc"), "--noEmit", "-p", "src/web/app"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(tsc.stdout).text(), tsc.exited]);
  expect(out).toBe("");
  expect(code).toBe(0);
}, 60_000);
