//! Two network namespaces on this machine joined by a veth pair, for MPI jobs whose
//! processes talk over Open MPI's TCP transport as on two machines: `mpirun` and two
//! processes in the first, the third in the second, started there by a launch agent that
//! stands in for ssh.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The pair of namespaces, removed (with their veth pair) when dropped.
pub struct Namespaces {
    names: [String; 2],
    /// The first namespace's address and the second's, on one /24.
    addresses: [String; 2],
    net: String,
    /// The launch agent and the host file.
    dir: tempfile::TempDir,
}

/// `ip ARGS`, insisting on success.
fn ip(args: &[&str]) {
    if let Err(e) = try_ip(args) {
        panic!("ip {args:?}: {e}");
    }
}

/// `ip ARGS`, or what it said when it failed.
fn try_ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip (iproute2) does not run: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

impl Namespaces {
    /// Makes the pair, or says why it cannot and returns `None`: namespaces need root and
    /// a machine (or container) that lets root make them (CI runs as root on one that
    /// does; a test that gets `None` is not run). Any other failure fails the test.
    pub fn new() -> Option<Self> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("not run: network namespaces need root");
            return None;
        }
        let id = std::process::id();
        let names = [format!("rb{id}a"), format!("rb{id}b")];
        let net = format!("172.31.{}", id % 256);
        let addresses = [format!("{net}.1"), format!("{net}.2")];
        let dir = tempfile::tempdir().unwrap();
        // Made before the namespaces, so that a failure below still removes them.
        let pair = Namespaces {
            names,
            addresses,
            net: format!("{net}.0/24"),
            dir,
        };
        let [a, b] = &pair.names;
        if let Err(e) = try_ip(&["netns", "add", a]) {
            let refused = ["not permitted", "Permission denied", "does not run"];
            if refused.iter().any(|r| e.contains(r)) {
                eprintln!("not run: this machine makes no network namespace: {e}");
                return None;
            }
            panic!("ip netns add {a}: {e}");
        }
        ip(&["netns", "add", b]);
        let (va, vb) = (format!("{a}v"), format!("{b}v"));
        ip(&[
            "link", "add", &va, "netns", a, "type", "veth", "peer", "name", &vb, "netns", b,
        ]);
        for (ns, dev, address) in [(a, &va, &pair.addresses[0]), (b, &vb, &pair.addresses[1])] {
            ip(&[
                "-n",
                ns,
                "addr",
                "add",
                &format!("{address}/24"),
                "dev",
                dev,
            ]);
            ip(&["-n", ns, "link", "set", "lo", "up"]);
            ip(&["-n", ns, "link", "set", dev, "up"]);
        }
        // Open MPI starts its daemon on a host of the host file through the agent as
        // `AGENT HOST COMMAND...`: the agent runs the command in that host's namespace.
        let agent = pair.agent();
        std::fs::write(
            &agent,
            format!(
                "#!/bin/sh\nhost=$1\nshift\nns={a}\n[ \"$host\" = {} ] && ns={b}\nexec ip netns exec \"$ns\" sh -c \"$*\"\n",
                pair.addresses[1]
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(
            pair.dir.path().join("hosts"),
            format!(
                "{} slots=2\n{} slots=1\n",
                pair.addresses[0], pair.addresses[1]
            ),
        )
        .unwrap();
        Some(pair)
    }

    fn agent(&self) -> PathBuf {
        self.dir.path().join("agent")
    }

    /// `mpirun -np 3 retrobook ARGS` run in the first namespace, the third process placed in
    /// the second, every message between processes sent over TCP on the pair's network.
    pub fn mpirun(&self, args: &[&str]) -> Output {
        let _alone = super::one_job();
        let hosts = self.dir.path().join("hosts");
        Command::new("ip")
            .args(["netns", "exec", &self.names[0], "mpirun", "-np", "3"])
            // Each namespace is a host to Open MPI, which would bind the first process of
            // each to the same core of this one machine.
            .args(["--bind-to", "none"])
            .arg("--hostfile")
            .arg(&hosts)
            .arg("--mca")
            .arg("plm_rsh_agent")
            .arg(self.agent())
            .args(["--mca", "btl", "tcp,self"])
            .args(["--mca", "btl_tcp_if_include", &self.net])
            .args(["--mca", "oob_tcp_if_include", &self.net])
            .arg(env!("CARGO_BIN_EXE_retrobook"))
            .args(args)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .expect("ip netns exec mpirun runs")
    }

    /// `mpirun` as above, insisting on success: its stdout, and the bytes the third
    /// process received and sent over the pair meanwhile.
    pub fn mpirun_ok(&self, args: &[&str]) -> (String, [u64; 2]) {
        let before = self.second_traffic();
        let out = self.mpirun(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = self.second_traffic();
        let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
        (stdout, [after[0] - before[0], after[1] - before[1]])
    }

    /// Bytes the second namespace's end of the veth pair has received and sent.
    fn second_traffic(&self) -> [u64; 2] {
        let dev = format!("{}v", self.names[1]);
        let read = |what: &str| -> u64 {
            let out = Command::new("ip")
                .args(["netns", "exec", &self.names[1], "cat"])
                .arg(format!("/sys/class/net/{dev}/statistics/{what}"))
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
        };
        [read("rx_bytes"), read("tx_bytes")]
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.names {
            // Removing a namespace removes its end of the pair, and so the pair.
            let _ = Command::new("ip").args(["netns", "del", name]).output();
        }
    }
}

/// Checks that the third process, alone in the second namespace, received and sent over
/// the pair at least a tenth of the `exchanged` bytes of the job each way (its share of
/// the exchange: a third, with what MPI adds).
pub fn assert_share_carried([received, sent]: [u64; 2], exchanged: u64) {
    println!("{exchanged} bytes exchanged, {received} received and {sent} sent over the pair");
    assert!(
        received > exchanged / 10 && sent > exchanged / 10,
        "{received} bytes received and {sent} sent over the pair, {exchanged} exchanged"
    );
}
