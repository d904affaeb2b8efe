import { Migration } from "@sca/db";

/** Refresh tokens, password reset tokens and cooldowns, the failed-sign-in throttle, TOTP and recovery codes. */
export class Migration20261123110000_SessionsAndSecondFactor extends Migration {
  override up(): void {
    // One row per issued refresh token; a family is the chain of rotations from one sign-in.
    this.addSql(`create table refresh_tokens (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      family_id uuid not null,
      token_hash char(64) not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      rotated_at timestamptz null,
      revoked_at timestamptz null)`);
    this.addSql(`create index refresh_tokens_user on refresh_tokens (user_id)`);
    this.addSql(`create index refresh_tokens_family on refresh_tokens (family_id)`);
    this.addSql(`create index refresh_tokens_expires on refresh_tokens (expires_at)`);
    this.addSql(`create table password_reset_tokens (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      token_hash char(64) not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz null)`);
    this.addSql(`create index password_reset_tokens_user on password_reset_tokens (user_id)`);
    this.addSql(`create index password_reset_tokens_expires on password_reset_tokens (expires_at)`);
    // Keyed by address, known or not, so neither the cooldown nor the throttle reveals whether an account exists.
    this.addSql(`create table password_reset_cooldowns (
      email varchar(320) primary key,
      last_requested_at timestamptz not null)`);
    this.addSql(`create table sign_in_throttles (
      email varchar(320) primary key,
      consecutive_failures integer not null check (consecutive_failures >= 0),
      refused_until timestamptz null,
      updated_at timestamptz not null default now())`);
    this.addSql(`create table totp_factors (
      user_id uuid primary key references users(id) on delete cascade,
      secret_sealed text not null,
      confirmed_at timestamptz null,
      last_used_step bigint null,
      created_at timestamptz not null default now())`);
    this.addSql(`create table recovery_codes (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      code_digest char(64) not null,
      used_at timestamptz null,
      created_at timestamptz not null default now(),
      unique (user_id, code_digest))`);
  }
}
