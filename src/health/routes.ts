import { Elysia, t } from "elysia";

export const healthRoutes = new Elysia({ name: "health" }).get("/api/health", () => ({ status: "ok" as const }), {
  response: t.Object({ status: t.Literal("ok") }),
  detail: { summary: "Health check", description: "Public; answers while the API process serves requests.", tags: ["Health"] },
});
