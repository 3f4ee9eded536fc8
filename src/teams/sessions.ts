/**
 * Console sessions (docs/teams.md "People and sign-in", docs/security.md "Sessions and CSRF"): the
 * `assay_session` cookie holds 32 random bytes (base64url); the store keeps only their SHA-256, so a
 * copy of the database signs nobody in. A session ends at `expiresAt` (ASSAY_SESSION_HOURS after
 * sign-in), after ASSAY_SESSION_IDLE_MINUTES without a request (`lastSeenAt`, written at most once
 * a minute), at sign-out (`endedAt`), or when its user is disabled. Each session has its own CSRF
 * token, which changes made with the cookie must echo in `X-CSRF-Token` (OWASP CSRF Prevention
 * Cheat Sheet, "Synchronizer Token Pattern").
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Session, User } from '../store/entities';
import { newSessionId, randomToken } from './people';

/** The session cookie's name. */
export const SESSION_COOKIE = 'assay_session';

/** `lastSeenAt` is written at most this often per session, ms. */
export const SESSION_TOUCH_MS = 60_000;

/** SHA-256 of a session token, lower-case hex (what `sessions.hash` holds). */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new session of `userId`. @returns the stored row and the token for the cookie (never stored). */
export async function createSession(
  manager: EntityManager,
  userId: string,
  options: { hours: number; address?: string | null; userAgent?: string | null },
  now = new Date(),
): Promise<{ session: Session; token: string }> {
  const token = randomToken(32);
  const session = manager.getRepository(Session).create({
    id: newSessionId(),
    hash: hashSessionToken(token),
    userId,
    csrfToken: randomToken(32),
    address: options.address?.slice(0, 64) ?? null,
    userAgent: options.userAgent?.slice(0, 255) ?? null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + options.hours * 3_600_000),
    endedAt: null,
  });
  await manager.getRepository(Session).insert(session);
  return { session, token };
}

/** A live session and its user. */
export interface LiveSession {
  session: Session;
  user: User;
}

/**
 * The live session whose cookie token is `token`, with its user, or null: unknown, ended, past
 * `expiresAt`, idle longer than `idleMinutes`, or its user gone or disabled. Moves `lastSeenAt` to
 * now when it is a minute or more old (not awaited by the caller's answer: a failed write only
 * shortens the idle time).
 */
export async function findLiveSession(
  manager: EntityManager,
  token: string,
  idleMinutes: number,
  now = new Date(),
): Promise<LiveSession | null> {
  if (!token || token.length > 200) return null;
  const session = await manager.getRepository(Session).findOneBy({ hash: hashSessionToken(token) });
  if (!session || session.endedAt) return null;
  const nowMs = now.getTime();
  if (session.expiresAt.getTime() <= nowMs) return null;
  if (nowMs - session.lastSeenAt.getTime() > idleMinutes * 60_000) return null;
  const user = await manager.getRepository(User).findOneBy({ id: session.userId });
  if (!user || user.disabledAt) return null;
  if (nowMs - session.lastSeenAt.getTime() >= SESSION_TOUCH_MS) {
    session.lastSeenAt = now;
    void manager
      .getRepository(Session)
      .update({ id: session.id }, { lastSeenAt: now })
      .catch(() => undefined);
  }
  return { session, user };
}

/** Ends a session (sign-out): it is refused from now on. */
export async function endSession(manager: EntityManager, sessionId: string, now = new Date()): Promise<void> {
  await manager.getRepository(Session).update({ id: sessionId }, { endedAt: now });
}

/** Whether `sent` (the `X-CSRF-Token` header) is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(sent: string | undefined, expected: string): boolean {
  if (!sent) return false;
  const digest = (t: string) => createHash('sha256').update(t, 'utf8').digest();
  return timingSafeEqual(digest(sent), digest(expected));
}
