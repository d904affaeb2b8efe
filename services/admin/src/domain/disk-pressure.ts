// How the disk panel judges a volume: by the limits the scan-orchestrator refuses new scans at (its
// domain/admission.ts decides; this shows the same judgement): used share at or above DISK_PRESSURE_HARD_LIMIT_PERCENT,
// or less free than DISK_PRESSURE_MIN_FREE_BYTES.
export interface DiskLimits {
  hardLimitPercent: number;
  minFreeBytes: number;
}

export function underPressure(usage: { totalBytes: number; freeBytes: number }, limits: DiskLimits): boolean {
  const usedPercent = usage.totalBytes > 0 ? ((usage.totalBytes - usage.freeBytes) / usage.totalBytes) * 100 : 100;
  return usedPercent >= limits.hardLimitPercent || usage.freeBytes < limits.minFreeBytes;
}
