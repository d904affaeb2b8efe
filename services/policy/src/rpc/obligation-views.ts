// How obligations and fulfilments are answered.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  FulfilmentSchema,
  ObligationSchema,
  type Fulfilment,
  type Obligation,
} from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import type { ProjectObligation } from "../domain/project-obligations.ts";
import type { ObligationFulfilmentRow } from "../store/obligation-fulfilments.ts";
import type { Derived } from "./obligation-derivation.ts";

export function fulfilmentView(row: ObligationFulfilmentRow, current: boolean): Fulfilment {
  return create(FulfilmentSchema, {
    id: row.id,
    projectId: row.projectId,
    obligationId: row.obligationId,
    obligation: row.obligation,
    license: row.license,
    ...(row.note !== null ? { note: row.note } : {}),
    ...(row.evidenceUrl !== null ? { evidenceUrl: row.evidenceUrl } : {}),
    ...(row.fulfilledByUserId !== null ? { fulfilledByUserId: row.fulfilledByUserId } : {}),
    version: row.version,
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
    current,
  });
}

export function obligationView(
  d: Derived,
  o: ProjectObligation,
  fulfilment: ObligationFulfilmentRow | undefined,
): Obligation {
  return create(ObligationSchema, {
    id: o.id,
    projectId: d.projectId,
    obligation: o.obligation,
    title: o.title,
    license: o.license,
    licenseCategory: o.licenseCategory,
    componentCount: o.componentCount,
    fulfilled: fulfilment !== undefined,
    ...(fulfilment ? { fulfilment: fulfilmentView(fulfilment, true) } : {}),
    scanId: d.summary.scanId,
  });
}
