// Writing the registry lookup's licenses on a snapshot's components (docs/license-fetch.md): one set-based statement
// over a JSON array of the purls' licenses (jsonb_to_recordset), joined to the snapshot's rows by purl. Only rows
// without a license (declared nor concluded) take one, so a repeat, or a license the document stated, is left as it
// is. The fetched license becomes the declared one (and so the component's license), its ids join the row's, and
// raw_data gains the property naming the registry, as the runner wrote it when the lookup ran before ingestion.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement } from "@sca/db";
import { LICENSE_SOURCE_PROPERTY, type FetchedLicenseRow } from "../domain/fetched-licenses.ts";

const FILL = `update inventory_components c set
    declared_license = x.expression,
    license = x.expression,
    license_ids = (
      select coalesce(jsonb_agg(d.id order by d.id collate "C"), '[]'::jsonb)
      from (select distinct id from jsonb_array_elements_text(c.license_ids || x.license_ids) as e(id)) d),
    raw_data = jsonb_set(c.raw_data, '{properties}',
      (case when jsonb_typeof(c.raw_data -> 'properties') = 'array' then c.raw_data -> 'properties' else '[]'::jsonb end)
        || jsonb_build_array(jsonb_build_object('name', ?::text, 'value', 'registry:' || x.registry))),
    updated_at = now()
  from jsonb_to_recordset(?::jsonb) as x(purl text, expression text, license_ids jsonb, registry text)
  where c.scan_id = ? and c.purl = x.purl and c.declared_license is null and c.concluded_license is null
    and jsonb_typeof(c.raw_data) = 'object'`;

/** Fills the snapshot's license-less rows carrying a listed purl; answers the rows filled. */
export async function writeFetchedLicenses(
  em: EntityManager,
  scanId: string,
  licenses: readonly FetchedLicenseRow[],
): Promise<number> {
  if (licenses.length === 0) return 0;
  const recordset = JSON.stringify(
    licenses.map((l) => ({ purl: l.purl, expression: l.expression, license_ids: l.licenseIds, registry: l.registry })),
  );
  return rawStatement(em, FILL, [LICENSE_SOURCE_PROPERTY, recordset, scanId]);
}
