#!/usr/bin/env python3
"""What a test step that ran past its time limit was doing (scripts/test.sh calls it before it stops the step).

Usage: scripts/hang-report.py [--kill] PID [LOG]   (--kill: then stops every process under PID, PID last)

Prints, last the shortest and most useful: every process under PID with its age and command line;
each thread's stack (gdb, when installed) of the project's own binaries among them (the test
runner, `gallery` servers), only the frames that name the project's modules or a blocking call,
demangled; and, when LOG is Swift Testing's output, the tests that started and never ended.
"""
import os
import re
import shutil
import subprocess
import sys

PROJECT = re.compile(r"Gallery|GridEngine|EngineBridge|Imaging|StoreTestSupport|Tests\b|\.swift:")
BLOCKING = re.compile(r"waitpid|pthread_cond_(timed)?wait|pthread_join|__futex|epoll_wait|poll|select|\bread\b|nanosleep|"
                      r"waitUntilExit|readDataToEndOfFile|DispatchSemaphore|dispatch_semaphore_wait|sem_wait|system\b|\.wait\(")


def children_of(pid):
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(tree.get(p, []))
    return out


def describe(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        with open(f"/proc/{pid}/stat") as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        age = uptime - start / os.sysconf("SC_CLK_TCK")
        return f"{pid:>7}  {age:7.0f} s  {cmd[:220]}"
    except OSError:
        return f"{pid:>7}  (gone)"


def demangle(text):
    swift = shutil.which("swift")
    if not swift:
        return text
    try:
        return subprocess.run([swift, "demangle", "--simplified", "--compact"], input=text, capture_output=True,
                              text=True, timeout=60).stdout or text
    except (OSError, subprocess.SubprocessError):
        return text


def stacks(pid):
    gdb = shutil.which("gdb")
    if not gdb:
        return "  (no gdb: no stacks)\n"
    try:
        raw = subprocess.run([gdb, "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off",
                              "-ex", "thread apply all bt 40"], capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return f"  (gdb failed: {e})\n"
    out, thread, frames = [], None, []

    def flush():
        keep = [f for f in frames if PROJECT.search(f) or BLOCKING.search(f)]
        if thread and any(PROJECT.search(f) for f in keep):
            out.append(thread)
            out.extend("    " + re.sub(r"^#\d+\s+(0x[0-9a-f]+ in )?", "", f)[:240] for f in keep[:14])

    for line in demangle(raw).splitlines():
        if line.startswith("Thread "):
            flush()
            thread, frames = "  " + line[:120], []
        elif line.startswith("#"):
            frames.append(line)
    flush()
    return "\n".join(out) + "\n" if out else "  (no thread in the project's code)\n"


def unfinished(log):
    started, ended = {}, set()
    with open(log, errors="replace") as f:
        for line in f:
            m = re.search(r"◇ Test (?:case passing .*? to )?(\S+?)\(", line)
            if m and "started" in line:
                started.setdefault(m.group(1), line.strip())
            m = re.search(r"[✔✘] Test (\S+?)\(", line)
            if m:
                ended.add(m.group(1))
    return [name for name in started if name not in ended]


def main():
    args = sys.argv[1:]
    kill = "--kill" in args
    args = [a for a in args if a != "--kill"]
    pid = int(args[0])
    log = args[1] if len(args) > 1 else None
    procs = children_of(pid)
    print("== hang report: the processes under the step (pid, age, command)")
    for p in procs:
        print(describe(p))
    for p in procs:
        try:
            exe = os.readlink(f"/proc/{p}/exe")
        except OSError:
            continue
        if "/.build" in exe or "xctest" in exe or "swiftpm-testing-helper" in exe:
            print(f"== stacks of {p} ({os.path.basename(exe)}): threads in the project's code")
            sys.stdout.write(stacks(p))
    if log and os.path.exists(log):
        names = unfinished(log)
        print(f"== tests that started and did not end ({len(names)}):")
        for n in names:
            print("  " + n)
    sys.stdout.flush()
    if kill:
        for p in reversed(children_of(pid)):
            try:
                os.kill(p, 9)
            except OSError:
                pass


if __name__ == "__main__":
    main()
