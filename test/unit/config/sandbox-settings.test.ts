import { describe, expect, it } from "vitest";
import { readSandboxSettings } from "../../../src/config/resolve.ts";
import { hiddenPaths, hiddenSystemPaths } from "../../../src/sandbox/bwrap-args.ts";

const layer = (settings: Record<string, unknown>, filePath: string) => ({ settings, filePath });

describe("readSandboxSettings", () => {
  it("reads $sandbox from both files and $sandboxHide from the user file only", () => {
    const read = readSandboxSettings({
      user: layer({ $sandbox: "workspace-write", $sandboxHide: ["~/.kube", "/srv/keys"] }, "/u.json"),
      project: layer({ $sandbox: "read-only", $sandboxHide: ["~/.nothing"] }, "/p.json"),
    });
    expect(read).toEqual({
      userDefault: "workspace-write",
      projectDefault: "read-only",
      hide: ["~/.kube", "/srv/keys"],
      warnings: [
        'pi-subagent-dispatch: /p.json: "$sandboxHide" can only be set in your user-level subagent-isolation.json; ignored',
      ],
    });
  });

  it("reads a value that is no level as read-only (fail closed), and warns about it and a value that is no list", () => {
    const read = readSandboxSettings({
      user: layer({ $sandbox: "strict", $sandboxHide: "~/.kube" }, "/u.json"),
      project: layer({}, "/p.json"),
    });
    expect(read.userDefault).toBe("read-only");
    expect(read.hide).toEqual([]);
    expect(read.warnings).toEqual([
      'pi-subagent-dispatch: /u.json: "$sandbox" must be one of off, workspace-write, read-only (got "strict"); every agent it covers runs read-only until that is fixed',
      'pi-subagent-dispatch: /u.json: "$sandboxHide" must be a list of paths ("~/..." or absolute); ignored',
    ]);
  });

  for (const typo of ["readonly", "read_only", "strict", "Read-Only"]) {
    it(`fails closed on "$sandbox": "${typo}" in the person's file and in a project's`, () => {
      const read = readSandboxSettings({
        user: layer({ $sandbox: typo }, "/u.json"),
        project: layer({ $sandbox: typo }, "/p.json"),
      });
      expect(read.userDefault).toBe("read-only");
      expect(read.projectDefault).toBe("read-only");
    });
  }
});

describe("hiddenPaths", () => {
  it("is the defaults under home (keys, tokens, shell histories) plus the person's own, relative ones dropped", () => {
    const paths = hiddenPaths("/home/ann", ["~/.kube", "/srv/keys", "relative/x"]);
    for (const secret of [
      ".ssh",
      ".gnupg",
      ".aws",
      ".config/gcloud",
      ".netrc",
      ".docker/config.json",
      ".git-credentials",
      ".config/gh",
      ".npmrc",
      ".pypirc",
      ".cargo/credentials",
      ".cargo/credentials.toml",
      ".kube",
      ".azure",
      ".bash_history",
      ".zsh_history",
      ".local/share/fish/fish_history",
    ]) {
      expect(paths).toContain(`/home/ann/${secret}`);
    }
    expect(paths).toContain("/srv/keys");
    expect(paths.filter((path) => path.includes("relative"))).toEqual([]);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("hides the person's runtime folder and docker's sockets", () => {
    expect(hiddenSystemPaths(1000)).toEqual(["/run/user/1000", "/var/run/docker.sock", "/run/docker.sock"]);
  });

  for (const typo of ["readonly", "read_only", "strict", "Read-Only"]) {
    it(`fails closed on "$sandbox": "${typo}" in the person's file and in a project's`, () => {
      const read = readSandboxSettings({
        user: layer({ $sandbox: typo }, "/u.json"),
        project: layer({ $sandbox: typo }, "/p.json"),
      });
      expect(read.userDefault).toBe("read-only");
      expect(read.projectDefault).toBe("read-only");
    });
  }
});

import { sandboxRefusedMessage } from "../../../src/sandbox/levels.ts";

describe("sandboxRefusedMessage", () => {
  it("names the agent, the level and who set it, the reason and both fixes", () => {
    expect(
      sandboxRefusedMessage(
        "worker",
        { level: "read-only", source: "frontmatter" },
        { kind: "not-found", dirs: ["/usr/bin", "/bin"] },
      ),
    ).toBe(
      'Cannot start the subagent "worker": it must run in a sandbox (sandbox: read-only, from the agent\'s frontmatter) and none can be made here: bwrap (bubblewrap) was not found in /usr/bin, /bin (it is looked for only there, owned by root, never on PATH). Nothing was started. The fix is the person\'s: install bubblewrap (the `bwrap` command; Debian/Ubuntu: apt-get install bubblewrap, Fedora: dnf install bubblewrap) with user namespaces turned on, or set "sandbox: off" for this agent (its frontmatter, or its entry in your subagent-isolation.json) to run it without a sandbox. A call\'s sandbox: "off" cannot lift it.',
    );
  });

  for (const typo of ["readonly", "read_only", "strict", "Read-Only"]) {
    it(`fails closed on "$sandbox": "${typo}" in the person's file and in a project's`, () => {
      const read = readSandboxSettings({
        user: layer({ $sandbox: typo }, "/u.json"),
        project: layer({ $sandbox: typo }, "/p.json"),
      });
      expect(read.userDefault).toBe("read-only");
      expect(read.projectDefault).toBe("read-only");
    });
  }
});
