/**
 * GET /v1/backup (admin keys): the store's archive (src/db/archive), streamed as it is read
 * from one snapshot — what `parley backup` writes, for a running instance reached over HTTP
 * (and the console's download). The same limits as every admin route apply; the archive holds
 * key hashes, never secrets.
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, adminAdmission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { exportArchive } from "../db/archive/index.ts";
import type { Store } from "../db/client.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";

export type BackupDeps = AdmissionDeps & { logger: Logger; store: Pick<Store, "kind" | "withLock"> };

export const backupRoutes = (deps: BackupDeps) =>
  new Elysia({ tags: ["Backups"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .get(
      "/backup",
      () => {
        const day = new Date(deps.now()).toISOString().slice(0, 10);
        return new Response(exportArchive(deps.store), {
          headers: {
            "content-type": "application/gzip",
            "content-disposition": `attachment; filename="parley-${day}.parley"`,
            "cache-control": "no-store",
          },
        });
      },
      {
        response: { ...ErrorResponses, 403: ErrorBody },
        detail: routeDoc(
          "Download a backup (admin)",
          "The whole store as one archive (gzip-compressed JSON lines, from one consistent snapshot), streamed: load it into a new store with `parley import FILE`. It holds key hashes and message text, never key secrets.",
          {
            operationId: "downloadBackup",
            file: { mediaType: "application/gzip", description: "The archive, streamed as it is read." },
          },
        ),
      },
    );
