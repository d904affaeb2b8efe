// The known-exploited catalog (CISA KEV JSON): its entries as the runner keeps them, and what a sync changed.

export interface KevEntry {
  cveId: string;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  /** YYYY-MM-DD. */
  dateAdded: string;
  /** YYYY-MM-DD: the remediation due date. */
  dueDate: string;
  /** "Known" or "Unknown". */
  knownRansomwareCampaignUse: string;
}

export interface KevCatalog {
  catalogVersion: string;
  /** YYYY-MM-DD of dateReleased. */
  releasedOn: string;
  entries: KevEntry[];
}

/** The entries of a catalog the CISA schema accepted (checked before), one per CVE (a repeated CVE keeps its first). */
export function kevCatalogOf(doc: {
  catalogVersion: string;
  dateReleased: string;
  vulnerabilities: Record<string, string | undefined>[];
}): KevCatalog {
  const seen = new Set<string>();
  const entries: KevEntry[] = [];
  for (const v of doc.vulnerabilities) {
    const cveId = String(v.cveID).toUpperCase();
    if (seen.has(cveId)) continue;
    seen.add(cveId);
    entries.push({
      cveId,
      vendorProject: String(v.vendorProject ?? ""),
      product: String(v.product ?? ""),
      vulnerabilityName: String(v.vulnerabilityName ?? ""),
      dateAdded: String(v.dateAdded ?? ""),
      dueDate: String(v.dueDate ?? ""),
      knownRansomwareCampaignUse: String(v.knownRansomwareCampaignUse ?? ""),
    });
  }
  return { catalogVersion: doc.catalogVersion, releasedOn: doc.dateReleased.slice(0, 10), entries };
}

/** CVEs the new catalog adds (listed) and drops (delisted) against the stored one. */
export function kevChanges(
  stored: ReadonlySet<string>,
  next: readonly KevEntry[],
): { listed: number; delisted: number } {
  const nextIds = new Set(next.map((e) => e.cveId));
  let listed = 0;
  for (const id of nextIds) if (!stored.has(id)) listed++;
  let delisted = 0;
  for (const id of stored) if (!nextIds.has(id)) delisted++;
  return { listed, delisted };
}
