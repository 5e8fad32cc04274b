# One image for every role (api, projections, workers); compose.yaml picks the role with ROLES.
#
# Bun comes from the official oven/bun image, pinned to the version package-lock.json resolves
# (bun@1.4.5). The operating system is pinned separately to Debian 12 (bookworm) rather than taken
# from oven/bun's Debian variant, whose Debian release is not part of its tag (its Dockerfile has been
# bullseye-based): the workers need yt-dlp, which is in bookworm's main archive, and bookworm's
# pocketsphinx (0.8+5prealpha, `pocketsphinx_continuous`) is the one our build machines run.
#
# Both are pinned (docs/operations.md, "Pinned images"): Debian by a dated tag and its digest; oven/bun by its exact
# version only, since no digest for that tag is published anywhere we could check. Only the bun binary is taken from it.
ARG BUN_VERSION=1.4.5
FROM oven/bun:${BUN_VERSION}-debian AS bun

FROM debian:bookworm-20260824-slim@sha256:88200866dfff7ea7f5cbcb6ec7c8a701889efe6fe859fe64d6990e4b07ea4171

# What the workers shell out to: ffmpeg decodes audio, PocketSphinx (with its US English model)
# recognises speech (espeak-ng pronounces a task's vocabulary words for it), yt-dlp fetches remote
# media. ca-certificates for yt-dlp's HTTPS. The PDF export embeds fonts-wqy-microhei (Latin, CJK,
# Hangul) and fonts-dejavu-core (Arabic, Hebrew).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates ffmpeg pocketsphinx pocketsphinx-en-us espeak-ng yt-dlp fonts-wqy-microhei fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

COPY --from=bun /usr/local/bin/bun /usr/local/bin/bun
# The same user (uid 1000) and runtime setting as the official image.
RUN ln -s /usr/local/bin/bun /usr/local/bin/bunx \
 && groupadd --gid 1000 bun \
 && useradd --uid 1000 --gid bun --shell /bin/sh --create-home bun
ENV BUN_RUNTIME_TRANSPILER_CACHE_PATH=0
# Production: Bun never answers with its development error page (stack frames, paths, source lines).
ENV NODE_ENV=production

WORKDIR /app

# Production dependencies, from the npm lockfile. No npm in the image: with no bun.lock present,
# `bun install` migrates package-lock.json in memory and installs the versions it pins, and
# --frozen-lockfile makes it fail rather than resolve anything anew (checked with bun 1.4.5: every
# package lands at its package-lock.json version). --production skips devDependencies.
COPY package.json package-lock.json ./
RUN bun install --production --frozen-lockfile

COPY tsconfig.json ./
COPY src ./src
COPY projections ./projections
COPY workers ./workers
# The web app is built from its sources when the api role starts (src/web); it uses the typed client.
COPY clients ./clients

# DATA_DIR defaults to ./data: scratch space for the workers, writable by the unprivileged user.
RUN mkdir -p data && chown bun:bun data
USER bun

EXPOSE 3000
CMD ["bun", "src/main.ts"]
