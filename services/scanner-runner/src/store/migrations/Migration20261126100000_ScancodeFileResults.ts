import { Migration } from "@sca/db";

/** scancode's license matches per file content (scancode_file_results), the stage's cache. */
export class Migration20261126100000_ScancodeFileResults extends Migration {
  override up(): void {
    this.addSql(`create table scancode_file_results (
      sha256 varchar(64) not null,
      scanner varchar(64) not null,
      matches jsonb not null,
      created_at timestamptz not null default now(),
      primary key (sha256, scanner))`);
  }
}
