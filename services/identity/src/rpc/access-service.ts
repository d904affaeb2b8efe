// AccessService.Authenticate: the gateway's one question, "who is this bearer?".
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { AccessService, AuthenticateResponseSchema } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { signCallerToken } from "@sca/rpc";
import { verifyAccessToken } from "../domain/access-token.ts";
import { userCaller } from "../store/callers.ts";

export interface AccessServiceDeps {
  orm: MikroORM;
  secretKey: string;
  groupCascade: boolean;
}

const invalid = () => ProblemError.unauthorized("The bearer credential is invalid or expired.");

export function registerAccessService(router: ConnectRouter, deps: AccessServiceDeps): void {
  router.service(AccessService, {
    async authenticate(req) {
      const bearer = req.bearer.trim();
      if (!bearer) throw ProblemError.unauthorized();
      const claims = await verifyAccessToken(bearer, deps.secretKey);
      if (!claims) throw invalid();
      const caller = await userCaller(deps.orm.em.fork(), claims.userId, {
        cascade: deps.groupCascade, ip: req.ip || null, userAgent: req.userAgent || null,
      });
      if (!caller) throw invalid();
      return create(AuthenticateResponseSchema, { callerToken: await signCallerToken(caller, deps.secretKey), cacheSeconds: 0 });
    },
  });
}
