import { execa } from 'execa';

/**
 * A network namespace of a sandbox's own, with only its loopback, for its test runs: a suite whose
 * tests listen on a fixed port (`server.listen(8000)`) can run in two sandboxes at once, as it can in
 * two containers, and a test's client never reaches another sandbox's server. A process holds the
 * namespace for the sandbox's life; each run enters it with `nsenter`, which costs a few
 * milliseconds. Where the machine cannot make one (no util-linux or iproute2, no user namespaces
 * for a user other than root), runs share the machine's network, as before.
 */
export class OwnNetwork {
  private constructor(
    private readonly holder: ReturnType<typeof execa>,
    private readonly enter: string[],
  ) {}

  /** A new namespace with its loopback up, or null where this machine cannot make one. */
  static async open(): Promise<OwnNetwork | null> {
    const root = process.getuid?.() === 0;
    // Without root, a user namespace of its own owns the network one (its user is root inside it).
    const holder = execa('unshare', ['--net', ...(root ? [] : ['--map-root-user']), 'sh', '-c', HOLD], {
      stdin: 'pipe',
      reject: false,
      buffer: false,
      // No exit hook of execa's: it would take over swesynth's own handling of Ctrl-C and SIGTERM.
      cleanup: false,
    });
    holder.catch(() => {});
    const ready = await new Promise<boolean>((resolve) => {
      holder.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().startsWith('ready')));
      holder.once('exit', () => resolve(false));
      holder.once('error', () => resolve(false));
    });
    if (!ready || !holder.pid) {
      holder.kill('SIGKILL');
      return null;
    }
    // The holder never keeps swesynth running: when swesynth exits, its input closes and it ends.
    holder.unref();
    for (const stream of [holder.stdin, holder.stdout, holder.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
    const enter = ['nsenter', `--target=${holder.pid}`, '--net', ...(root ? [] : ['--user', '--preserve-credentials']), '--'];
    const network = new OwnNetwork(holder, enter);
    // nsenter may be missing where unshare is not.
    const tried = await execa(enter[0]!, [...enter.slice(1), 'true'], { reject: false });
    if (tried.exitCode !== 0) {
      network.close();
      return null;
    }
    return network;
  }

  /** The command as it runs inside the namespace. */
  wrap(file: string, args: readonly string[]): [string, string[]] {
    return [this.enter[0]!, [...this.enter.slice(1), file, ...args]];
  }

  /** Ends the holder; the namespace goes with the last process in it. */
  close(): void {
    this.holder.kill('SIGKILL');
  }
}

/** Brings the loopback up, says so, and holds the namespace until swesynth closes its input (or exits). */
const HOLD = 'ip link set lo up && echo ready && exec cat > /dev/null';
