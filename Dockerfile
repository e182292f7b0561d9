# The one Kubedag image: the operator (default command) and the API server
# (`node apiserver/main.ts`), as the Helm chart runs them. The API server runs its TypeScript
# sources directly (type stripping). The operator runs as one module bundled from the same
# sources (scripts/operator-bundle.ts), which holds a third less memory: only the parts of
# @kubernetes/client-node it uses are loaded, and no type stripper is
# (docs/decisions/2026-11-24-operator-memory.md).
FROM node:24-bookworm-slim AS bundle
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY core ./core
COPY operator ./operator
COPY scripts/bundle.ts scripts/operator-bundle.ts ./scripts/
RUN node scripts/bundle.ts

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY core ./core
COPY apiserver ./apiserver
COPY --from=bundle /src/dist/operator.mjs ./dist/operator.mjs
USER 1000:1000
EXPOSE 8080 8081
# The flags of the chart's operator.nodeFlags; the chart also sets MALLOC_ARENA_MAX=2.
CMD ["node", "--max-semi-space-size=2", "--optimize-for-size", "dist/operator.mjs"]
