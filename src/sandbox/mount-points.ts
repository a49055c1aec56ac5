/**
 * The mount points bubblewrap makes on the host for a `workspace-write` child's missing protected paths (an empty
 * `.pi/` folder, an empty `AGENTS.md`): removed once the child and everything it started have ended, when still
 * empty, so nothing is left in the person's project. A path another running sandbox uses, of this pi or of another
 * pi process sharing the agent dir, is kept until the last one ends: removing a mount point on the host unmounts it
 * in every sandbox, which would let that child create the path for real.
 *
 * The record is shared through the agent dir (never the project, which a child may write): for each path a folder
 * `<agent dir>/subagent-mount-points/<hash of the path>/` holding one `claim-<owner>` file per running child, the
 * owner being the pi process (`<pid>_<start time>_<n>`), and `made` once a child's bubblewrap made the path. A
 * child claims each protected path that is missing or empty (a later child sees another's mount point as an empty
 * folder or file, and mounts over it too), so the path is removed after the last of them, and only when a
 * bubblewrap made it (an empty `.claude/` of the person's stays). A claim of a pi that no longer runs is cleared.
 * Without a lock: a pi about to remove a mount point first writes `removing-<owner>`, then looks for claims; a pi
 * about to start a child first writes its claim, then waits while a live `removing-` file is there. So either the
 * remover sees the new claim and keeps the path, or the claimer starts only after the removal, and its bubblewrap
 * makes the mount point afresh.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, lstatSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentDir, perProcess } from "../shared/this-process.ts";
import { isIdentityAlive, ownIdentity, type ProcessIdentity } from "../shared/proc-identity.ts";

/** The agent dir's entry holding the record (a sandboxed child never sees it). */
const MOUNT_POINT_RECORD_DIR = "subagent-mount-points";
const CLAIM = "claim-";
const REMOVING = "removing-";
/** In a path's record: a bubblewrap made the path, so it is removed after the last child. */
const MADE = "made";
/** How long a child's start waits for another pi's removal of a mount point (which takes microseconds). */
const REMOVAL_WAIT_MS = 2000;
const POLL_MS = 5;

export interface MountPointDeps {
  /** The folder holding the record (default `<agent dir>/subagent-mount-points`). */
  recordRoot: string;
  /** This pi process. */
  owner: ProcessIdentity;
  isAlive: (identity: ProcessIdentity) => boolean;
}

function defaultDeps(): MountPointDeps {
  return { recordRoot: join(agentDir(), MOUNT_POINT_RECORD_DIR), owner: ownIdentity(), isAlive: isIdentityAlive };
}

/** A record entry's name: its kind, the owning pi and a number of its own within that pi. */
function entryName(kind: string, owner: ProcessIdentity): string {
  const counter = perProcess("sandbox-mount-points", () => ({ next: 0 }));
  counter.next += 1;
  return `${kind}${owner.pid}_${owner.start ?? "-"}_${counter.next}`;
}

/** The pi that wrote an entry, from its name (undefined for a name that is not the record's). */
function ownerOf(name: string): ProcessIdentity | undefined {
  const match = /^(?:claim|removing)-(\d+)_(\d+|-)_\d+$/.exec(name);
  if (!match) return undefined;
  return match[2] === "-" ? { pid: Number(match[1]) } : { pid: Number(match[1]), start: match[2] };
}

function recordDir(root: string, path: string): string {
  return join(root, createHash("sha256").update(path).digest("hex").slice(0, 32));
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/** The live entries of one kind in `dir`; those of a pi that no longer runs are removed on the way. */
function liveEntries(dir: string, kind: string, deps: MountPointDeps): string[] {
  return entries(dir).filter((name) => {
    if (!name.startsWith(kind)) return false;
    const owner = ownerOf(name);
    if (owner && deps.isAlive(owner)) return true;
    removeQuietly(join(dir, name));
    return false;
  });
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Writes `dir/name` (its content, the path it is about), making the folder again should a remover just have taken it. */
function writeEntry(dir: string, name: string, path: string): boolean {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, name), `${path}\n`, { flag: "wx", mode: 0o600 });
      return true;
    } catch {
      // the folder went between the two calls: again
    }
  }
  return false;
}

/** An empty file or folder: what bubblewrap makes as a mount point (`stats`: the path's, when already read). */
export function isEmptyMountPoint(
  path: string,
  stats: import("node:fs").Stats | undefined = lstatSync(path, { throwIfNoEntry: false }),
): boolean {
  if (stats?.isFile()) return stats.size === 0;
  return stats?.isDirectory() === true && entries(path).length === 0;
}

function writeMarker(path: string, content: string): void {
  try {
    writeFileSync(path, `${content}\n`, { mode: 0o600 });
  } catch {
    // unrecorded: the path is then kept, never removed
  }
}

/** A child's use of its mount points, released once the child and everything it started have ended. */
export interface MountPointClaim {
  /** The paths that were missing when it was claimed: its bubblewrap makes them (as empty files or folders). */
  readonly made: readonly string[];
  release(): void;
}

/**
 * Records that a child about to start mounts over `paths` (its protected paths), each that is missing (which its
 * bubblewrap makes) or empty (which may be another sandbox's mount point); returns once no other pi is removing
 * one of them.
 */
export function claimMountPoints(paths: readonly string[], deps: MountPointDeps = defaultDeps()): MountPointClaim {
  const claims: { path: string; dir: string; name: string }[] = [];
  const made: string[] = [];
  for (const path of paths) {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    const missing = stats === undefined;
    // Only a missing or empty path can be a sandbox's mount point; anything else is the person's alone.
    if (!missing && !isEmptyMountPoint(path, stats)) continue;
    const dir = recordDir(deps.recordRoot, path);
    const name = entryName(CLAIM, deps.owner);
    // A claim that cannot be written leaves the path unrecorded: the release then keeps it, never removes it.
    if (!writeEntry(dir, name, path)) continue;
    if (missing) {
      writeMarker(join(dir, MADE), path);
      made.push(path);
    }
    claims.push({ path, dir, name });
    const deadline = Date.now() + REMOVAL_WAIT_MS;
    while (liveEntries(dir, REMOVING, deps).length > 0 && Date.now() < deadline) pause(POLL_MS);
  }
  let released = false;
  return {
    made,
    release: () => {
      if (released) return;
      released = true;
      for (const claim of claims) releaseOne(claim, deps);
    },
  };
}

function releaseOne(claim: { path: string; dir: string; name: string }, deps: MountPointDeps): void {
  removeQuietly(join(claim.dir, claim.name));
  const removing = entryName(REMOVING, deps.owner);
  if (!writeEntry(claim.dir, removing, claim.path)) return;
  try {
    if (liveEntries(claim.dir, CLAIM, deps).length > 0) return;
    if (!entries(claim.dir).includes(MADE)) return;
    // The made mark goes first: should the removal fail (the person wrote into it), the path is theirs now.
    removeQuietly(join(claim.dir, MADE));
    const stats = lstatSync(claim.path, { throwIfNoEntry: false });
    if (stats?.isDirectory()) rmdirSync(claim.path);
    else if (stats?.isFile() && stats.size === 0) unlinkSync(claim.path);
  } catch {
    // not empty (someone else wrote it since), or gone: left as it is
  } finally {
    removeQuietly(join(claim.dir, removing));
    try {
      rmdirSync(claim.dir);
    } catch {
      // another pi's claim is there
    }
  }
}
