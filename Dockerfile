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
COPY step ./step
COPY scripts/bundle.ts scripts/operator-bundle.ts scripts/step-bundle.ts ./scripts/
RUN node scripts/bundle.ts && node scripts/step-bundle.ts dist/kubedag-step.mjs

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY core ./core
COPY apiserver ./apiserver
COPY --from=bundle /src/dist/operator.mjs ./dist/operator.mjs
# The step runner of http, jq, mail and ssh steps: step Pods run this image with kubedag-step
# on their PATH (the operator's --runner-image).
COPY --from=bundle /src/dist/kubedag-step.mjs ./dist/kubedag-step.mjs
RUN printf '#!/bin/sh\nexec node /app/dist/kubedag-step.mjs "$@"\n' > /usr/local/bin/kubedag-step && chmod 755 /usr/local/bin/kubedag-step
USER 1000:1000
EXPOSE 8080 8081
# The flags of the chart's operator.nodeFlags; the chart also sets MALLOC_ARENA_MAX=2.
CMD ["node", "--max-semi-space-size=2", "--optimize-for-size", "dist/operator.mjs"]
