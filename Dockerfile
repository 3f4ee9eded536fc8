# Assay API and worker image (one image, two commands; see docker-compose.yml).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
# MALLOC_ARENA_MAX: glibc arenas per load thread fragment; two keep RSS lower and level (docs/performance.md "More load").
ENV NODE_ENV=production ASSAY_HOST=0.0.0.0 MALLOC_ARENA_MAX=2
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8080 8081
# isolated-vm (script sandbox) needs --no-node-snapshot on Node 20+.
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/bin/main.js", "api"]
