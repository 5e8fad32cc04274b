import { Elysia, t } from "elysia";
import { checkDependencies, type Dependency } from "./readiness.ts";

const report = t.Object({
  name: t.String({ description: "event store, read models, bus, blobs; for workers also ffmpeg and the speech engine" }),
  ok: t.Boolean(),
  latency_ms: t.Number({ description: "How long the check took." }),
  error: t.Optional(t.String({ description: "Why it is down." })),
});

/**
 * `GET /api/ready`: whether this process can do its work now — every dependency it uses, checked on each
 * request with its latency; 503 (the error shape, with the same report) when one is down. Public, like
 * `/api/health`, which only says the process answers.
 */
export function readyRoutes(dependencies: readonly Dependency[]) {
  return new Elysia({ name: "ready" }).get(
    "/api/ready",
    async ({ set }) => {
      const checked = await checkDependencies(dependencies);
      const down = checked.filter((d) => !d.ok);
      if (down.length === 0) return { status: "ready" as const, dependencies: checked };
      set.status = 503;
      return { status: "not ready" as const, message: `Not ready: ${down.map((d) => d.name).join(", ")} down.`, dependencies: checked };
    },
    {
      response: {
        200: t.Object({ status: t.Literal("ready"), dependencies: t.Array(report) }),
        503: t.Object({ status: t.Literal("not ready"), message: t.String(), dependencies: t.Array(report) }),
      },
      detail: {
        tags: ["Health"],
        summary: "Readiness: every dependency this process uses",
        description:
          "Public. 200 when every dependency answers (each within 2 s), 503 naming those that do not; checked on every request, so it recovers when they do.",
      },
    },
  );
}
