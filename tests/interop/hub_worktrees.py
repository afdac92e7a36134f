"""Two coding agents in two git worktrees of one repository, as Claude Code runs parallel
agents: `coordination-hub init` was run once in the main checkout and its files committed, and
`init --hooks` once in each worktree. The official MCP Python SDK starts the hub from each
worktree's committed `.mcp.json` as Claude Code does (cwd = the worktree); the hooks run as
Claude Code runs them (the command in the worktree's `.claude/settings.local.json`, through a
shell, the tool call on stdin); git runs its pre-commit hook.

Checks: both sessions land in one project under their branch names, which the instructions
tell each model; a file reserved from worktree A blocks B's Edit (pre-edit), is caught after
B's `sed -i` (post-tool, Bash), and refuses B's commit (pre-commit); `check_branch` and
`coordination-hub preflight` report a file both branches change, with the other agent and its
branch, and nothing else.

Usage: python hub_worktrees.py WORKTREE_A WORKTREE_B FIXTURES
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import json
import os
import subprocess
import sys

from mcp import Client

from hub_entry import server_as_written


def check(condition, what):
    if not condition:
        raise SystemExit(f"hub worktrees failure: {what}")


def hook_command(worktree, event, matcher):
    """The command of the worktree's Claude Code hook for `event` and `matcher`."""
    with open(os.path.join(worktree, ".claude", "settings.local.json")) as f:
        groups = json.load(f)["hooks"][event]
    commands = [hook["command"] for group in groups if group["matcher"] == matcher
                for hook in group["hooks"]]
    check(len(commands) == 1, f"one {event} hook for {matcher}: {groups}")
    return commands[0]


def run_hook(worktree, command, fixture, file):
    """Runs `command` as Claude Code does (a shell, in the worktree) on the fixture's tool call
    for `file`: exit code and stderr."""
    with open(fixture) as f:
        text = f.read()
    text = text.replace("REPOSITORY/FILE", os.path.join(worktree, file))
    text = text.replace("REPOSITORY", worktree).replace("FILE", file)
    env = dict(os.environ, CLAUDE_PROJECT_DIR=worktree)
    ran = subprocess.run(["sh", "-c", command], input=text, capture_output=True, text=True,
                         cwd=worktree, env=env, timeout=60)
    return ran.returncode, ran.stderr


def git(worktree, *args, ok=True):
    ran = subprocess.run(["git", *args], capture_output=True, text=True, cwd=worktree,
                         timeout=60)
    if ok:
        check(ran.returncode == 0, f"git {args}: {ran.stderr}")
    return ran


async def call(client, tool, **arguments):
    result = await client.call_tool(tool, arguments)
    check(not result.is_error, f"{tool}({arguments}) failed: {result.content}")
    return result.structured_content


async def each_sees_the_other(a, b):
    """Both register under their branch's name, which the instructions say, in one project."""
    for client, session, branch in ((a, "task-a", "task/a"), (b, "task-b", "task/b")):
        check(f"`{session}`" in (client.instructions or ""),
              f"the instructions name the session {session}: {client.instructions}")
        registered = await call(client, "register_agent", session_name=session, task_id="1",
                                branch=branch, description=f"{session}'s work")
        check(registered["project_id"] == "shop", f"one project: {registered}")
    overview = await call(b, "project_overview")
    sessions = sorted(agent["session_name"] for agent in overview["agents"])
    check(overview["project_id"] == "shop" and sessions == ["task-a", "task-b"],
          f"both agents in project shop: {overview}")


def b_is_stopped_at_every_door(b_dir, fixtures):
    """A holds src/lib.rs: B's Edit is blocked, B's sed -i is caught, B's commit refused."""
    edit = os.path.join(fixtures, "pre-tool-use-edit.json")
    bash = os.path.join(fixtures, "post-tool-use-bash.json")
    pre_edit = hook_command(b_dir, "PreToolUse", "Edit|Write|MultiEdit")
    post_tool = hook_command(b_dir, "PostToolUse", "*")
    code, said = run_hook(b_dir, pre_edit, edit, "src/lib.rs")
    check(code == 2 and "task-a" in said, f"B's Edit is blocked naming task-a: {code} {said}")
    code, said = run_hook(b_dir, post_tool, bash, "src/lib.rs")
    check(code == 0, f"nothing changed yet: {code} {said}")

    subprocess.run(["sed", "-i", "s/shop/store/", "src/lib.rs"], cwd=b_dir, check=True)
    code, said = run_hook(b_dir, post_tool, bash, "src/lib.rs")
    check(code == 2 and "src/lib.rs" in said and "task-a" in said,
          f"B's sed -i is caught naming task-a: {code} {said}")

    git(b_dir, "add", "src/lib.rs")
    refused = git(b_dir, "commit", "-q", "-m", "b's change", ok=False)
    check(refused.returncode != 0 and "held by task-a" in refused.stderr,
          f"B's commit is refused: {refused.returncode} {refused.stderr}")
    git(b_dir, "restore", "--staged", "src/lib.rs")
    git(b_dir, "restore", "src/lib.rs")
    code, said = run_hook(b_dir, post_tool, bash, "src/lib.rs")
    check(code == 0, f"undone, B goes on: {code} {said}")


def write(folder, file, text):
    with open(os.path.join(folder, file), "w") as f:
        f.write(text)


async def both_branches_change_one_file(a_dir, b, b_dir, hub):
    """A commits src/shared.rs and src/only_a.rs on task/a; B changes src/shared.rs and
    src/only_b.rs uncommitted: each side's preflight names the other for src/shared.rs only."""
    write(a_dir, "src/shared.rs", "pub fn a() {}\n")
    write(a_dir, "src/only_a.rs", "pub fn only_a() {}\n")
    git(a_dir, "add", "src")
    git(a_dir, "commit", "-q", "-m", "a's change")
    write(b_dir, "src/shared.rs", "pub fn b() {}\n")
    write(b_dir, "src/only_b.rs", "pub fn only_b() {}\n")

    from_b = await call(b, "check_branch", session_name="task-b")
    overlaps = [(o["file_path"], o["session_name"], o.get("branch"), o["how"])
                for o in from_b["overlaps"]]
    check(overlaps == [("src/shared.rs", "task-a", "task/a", "committed")],
          f"B's check_branch names A's commit of src/shared.rs only: {from_b}")

    ran = subprocess.run([hub, "preflight", "--json"], capture_output=True, text=True,
                         cwd=a_dir, timeout=60)
    check(ran.returncode == 1, f"preflight exits 1 on an overlap: {ran.returncode} {ran.stderr}")
    from_a = json.loads(ran.stdout)
    overlaps = [(o["file_path"], o["session_name"], o.get("branch"), o["how"])
                for o in from_a["overlaps"]]
    check(from_a["session_name"] == "task-a" and
          overlaps == [("src/shared.rs", "task-b", "task/b", "uncommitted")],
          f"A's preflight names B's uncommitted src/shared.rs only: {from_a}")

    os.remove(os.path.join(b_dir, "src/shared.rs"))
    ran = subprocess.run([hub, "preflight"], capture_output=True, text=True, cwd=a_dir,
                         timeout=60)
    check(ran.returncode == 0 and "no other agent" in ran.stdout,
          f"unrelated files overlap nothing: {ran.returncode} {ran.stdout} {ran.stderr}")


async def main(a_dir, b_dir, fixtures):
    async with Client(server_as_written(a_dir)) as a, Client(server_as_written(b_dir)) as b:
        await each_sees_the_other(a, b)
        await call(a, "announce_file_change", session_name="task-a", file_path="src/lib.rs",
                   change_type="modify", description="a refactors the shop")
        b_is_stopped_at_every_door(b_dir, fixtures)
        hub = server_as_written(a_dir).command
        await both_branches_change_one_file(a_dir, b, b_dir, hub)
        print("two worktrees: one project, every door holds, preflight names the overlap")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
