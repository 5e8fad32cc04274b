import { fileResponse } from "../http/openapi/responses.ts";
import { releaseHeavyWork } from "../http/heavy-work-slots.ts";
import { Elysia, t } from "elysia";
import type { Authenticated } from "./authentication.ts";
import type { BlobStore } from "../blobs/port.ts";
import { NotFoundError } from "../core/errors.ts";
import type { UserDocument } from "./users-projection.ts";
import type { Accounts } from "./service.ts";
import { initialsAvatar } from "./avatars.ts";
import type { Profiles } from "./profiles.ts";
import { profileResponse, updateUserBodyOf, userResponse } from "./schemas.ts";
import { profileView, userView, type QueueOf, type RetentionSetting } from "./user-view.ts";

export type UserRoutesDependencies = {
  accounts: Accounts;
  profiles: Profiles;
  blobs: BlobStore;
  publicUrl: string;
  queueOf: QueueOf;
  retention: RetentionSetting;
  authenticated: Authenticated;
};

/**
 * What every avatar is served with. An `<img>` never runs an SVG's scripts, but an SVG opened as a page would, on
 * this origin: the policy sandboxes whatever is opened and allows it nothing. The initials are the only SVG
 * meant to be served (uploads of SVG are refused, avatars.ts, and only the four raster names are looked up); they,
 * and a stored file of any other type, go as an attachment besides: saved, not shown, when opened directly (an
 * `<img>` ignores that).
 */
const imageHeaders = { "content-security-policy": "default-src 'none'; sandbox" };
const attachmentHeaders = { ...imageHeaders, "content-disposition": "attachment" };
const rasterTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** GET and PUT /api/user (spec 4.5), and the public avatar images their URLs point at. */
export function userRoutes({ accounts, profiles, blobs, publicUrl, queueOf, retention, authenticated }: UserRoutesDependencies) {
  const tags = ["User"];
  const security = [{ bearer: [] }];

  const account = new Elysia({ name: "user-routes" })
    .use(authenticated)
    .get("/api/user", ({ user }) => userView(queueOf, retention, publicUrl, user as UserDocument), {
      response: { 200: userResponse },
      detail: { tags, security, summary: "The account: profile, balance, subscription and queue" },
    })
    .put("/api/user", async ({ body, caller, metadata }) => profileView(publicUrl, await profiles.update(caller.userId, body, metadata)), {
      // An avatar of up to 5 MB: its heavy-work slot is given back once the work is done.
      afterHandle: ({ request }) => releaseHeavyWork(request),
      body: updateUserBodyOf(retention.maxDays),
      response: { 200: profileResponse },
      detail: {
        tags,
        security,
        summary: "Update name, email, avatar and retention",
        description:
          "JSON or multipart/form-data (for the avatar). All fields optional. 422 for a taken email, a non-image or an image over 5 MB, " +
          "or a retention_days that is not a whole number from 1 to RETENTION_MAX_DAYS or null.",
      },
    });

  const images = new Elysia({ name: "avatar-images" }).get(
    "/avatars/:userId/:file",
    async ({ params }) => {
      if (!/^\d+$/.test(params.userId)) throw new NotFoundError();
      if (params.file === "default.svg") {
        const user = await accounts.findById(Number(params.userId));
        if (!user) throw new NotFoundError();
        return new Response(initialsAvatar(user.name, user.id), {
          headers: { ...attachmentHeaders, "content-type": "image/svg+xml", "cache-control": "no-cache" },
        });
      }
      if (!/^[0-9a-f-]{36}\.(png|jpg|gif|webp)$/.test(params.file)) throw new NotFoundError();
      const blob = await blobs.get(`avatars/${params.userId}/${params.file}`);
      if (!blob) throw new NotFoundError();
      return new Response(blob.body, {
        headers: {
          ...(rasterTypes.has(blob.contentType) ? imageHeaders : attachmentHeaders),
          "content-type": blob.contentType,
          "content-length": String(blob.size),
          "cache-control": "public, max-age=31536000, immutable",
        },
      });
    },
    {
      params: t.Object({ userId: t.String(), file: t.String() }),
      detail: {
        tags,
        summary: "Avatar image (public)",
        responses: {
          200: fileResponse(
            "The image: an uploaded one, or the generated initials (SVG).",
            ["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"],
            {
              "Content-Security-Policy": { description: "`default-src 'none'; sandbox`: opened directly, the image runs nothing.", schema: { type: "string" } },
              "Content-Disposition": { description: "`attachment` on the SVG: opened directly, it is saved, not shown.", schema: { type: "string" } },
            },
          ),
        },
      },
    },
  );

  return new Elysia({ name: "user-feature" }).use(account).use(images);
}
