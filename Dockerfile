# The one Kubedag image: the operator (default command) and the API server
# (`node apiserver/main.ts`), as the Helm chart runs them. Node runs the TypeScript sources
# directly (type stripping), so the image holds the sources and the runtime dependencies only.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY core ./core
COPY operator ./operator
COPY apiserver ./apiserver
USER 1000:1000
EXPOSE 8080 8081
CMD ["node", "operator/main.ts"]
