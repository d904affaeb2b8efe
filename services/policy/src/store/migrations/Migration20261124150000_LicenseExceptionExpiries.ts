import { Migration } from "@sca/db";

/**
 * Up to when the expiries of a policy's exceptions have been announced (LicensePolicyChanged): the expiry job looks
 * for exceptions that expired after it. Existing rows start now: an exception expired before is already not applied.
 */
export class Migration20261124150000_LicenseExceptionExpiries extends Migration {
  override up(): void {
    this.addSql("alter table license_policies add column expiries_announced_until timestamptz not null default now()");
  }
}
