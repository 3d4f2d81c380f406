//! Mutual TLS between a cluster's client, scheduler and executors (`--tls DIR`).
//!
//! Ballista 55 has no authentication of its own, but it lets an embedder
//! choose how its gRPC clients connect (`use_tls` and an endpoint override)
//! and how an executor serves Flight. With `--tls DIR` every connection of the
//! cluster is TLS, and every server asks the peer for a certificate signed by
//! the cluster's CA: whoever lacks `DIR`'s key can neither submit a query nor
//! fetch a result or a shuffle file.
//!
//! `DIR` holds `ca.pem` (the CA certificate every node trusts), `node.pem` and
//! `node.key` (the certificate a node presents, as server and as client).
//! `tracesql cluster certs` writes such a directory; a site with its own PKI
//! puts its own files under those names.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ballista_core::extension::EndpointOverrideFn;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity, ServerTlsConfig};

use crate::Error;

/// The CA certificate every node trusts.
pub const CA_CERT: &str = "ca.pem";
/// The CA's private key: needed only to sign certificates, keep it off the nodes.
pub const CA_KEY: &str = "ca.key";
/// The certificate a node presents, to servers and to clients.
pub const NODE_CERT: &str = "node.pem";
/// Its private key.
pub const NODE_KEY: &str = "node.key";

/// A node's TLS material, read from a `--tls` directory.
#[derive(Clone)]
pub struct Tls {
    ca: Certificate,
    identity: Identity,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls { .. }")
    }
}

impl Tls {
    /// Reads `ca.pem`, `node.pem` and `node.key` from `dir`; an error names the
    /// file that is missing or not PEM.
    pub fn read(dir: &str) -> Result<Tls, Error> {
        let dir = Path::new(dir);
        let ca = read_pem(dir, CA_CERT, "CERTIFICATE")?;
        let cert = read_pem(dir, NODE_CERT, "CERTIFICATE")?;
        let key = read_pem(dir, NODE_KEY, "PRIVATE KEY")?;
        Ok(Tls {
            ca: Certificate::from_pem(ca),
            identity: Identity::from_pem(cert, key),
        })
    }

    /// What a server presents, and the CA its clients' certificates must chain to.
    /// A handshake not done in 20 s is dropped: a peer that connects and
    /// stalls (or speaks plain HTTP/2 and waits) gets a closed connection, an
    /// error it can report, rather than a socket held open forever.
    pub fn server(&self) -> ServerTlsConfig {
        ServerTlsConfig::new()
            .identity(self.identity.clone())
            .client_ca_root(self.ca.clone())
            .timeout(Duration::from_secs(20))
    }

    /// What a client trusts, and the certificate it presents.
    pub fn client(&self) -> ClientTlsConfig {
        ClientTlsConfig::new()
            .ca_certificate(self.ca.clone())
            .identity(self.identity.clone())
    }

    /// For Ballista's clients: each endpoint it builds made `https` (some are
    /// built as `http://` whatever `use_tls` says) and given [`Tls::client`].
    pub fn endpoint_override(&self) -> EndpointOverrideFn {
        let tls = self.clone();
        Arc::new(move |endpoint: Endpoint| {
            let uri = endpoint.uri().to_string();
            let endpoint = match uri.strip_prefix("http://") {
                // A new endpoint drops the settings Ballista gave the old one:
                // the ones that keep a dead peer from hanging a query are
                // given again.
                Some(rest) => Endpoint::from_shared(format!("https://{rest}"))?
                    .connect_timeout(Duration::from_secs(20))
                    .timeout(Duration::from_secs(super::CLIENT_REQUEST_TIMEOUT_SECONDS))
                    .tcp_nodelay(true)
                    .tcp_keepalive(Some(Duration::from_secs(3600)))
                    .http2_keep_alive_interval(Duration::from_secs(300))
                    .keep_alive_timeout(Duration::from_secs(20))
                    .keep_alive_while_idle(true),
                None => endpoint,
            };
            Ok(endpoint.tls_config(tls.client())?)
        })
    }
}

/// The PEM text of `dir/name`, checked to hold a `kind` block.
fn read_pem(dir: &Path, name: &str, kind: &str) -> Result<String, Error> {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::Usage(format!(
            "--tls {}: cannot read {name}: {e} (`tracesql cluster certs` writes one)",
            dir.display()
        ))
    })?;
    if !text.contains("-----BEGIN ") || !text.contains(kind) {
        return Err(Error::Usage(format!(
            "--tls {}: {name} holds no PEM {kind}",
            dir.display()
        )));
    }
    Ok(text)
}

/// Writes a new CA and one node certificate valid for `hosts` (names or IP
/// addresses; localhost and 127.0.0.1 are always added) into `dir`, which must
/// not hold them yet. Returns the files written.
pub fn write_certs(dir: &str, hosts: &[String], days: u32) -> Result<Vec<PathBuf>, Error> {
    use rcgen::{
        BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose,
        IsCa, Issuer, KeyPair, KeyUsagePurpose,
    };
    let fail = |e: rcgen::Error| Error::Usage(format!("cluster certs: {e}"));
    let dir_path = Path::new(dir);
    std::fs::create_dir_all(dir_path)
        .map_err(|e| Error::Output(format!("{dir}: cannot create the directory: {e}")))?;
    let files: Vec<PathBuf> = [CA_CERT, CA_KEY, NODE_CERT, NODE_KEY]
        .iter()
        .map(|name| dir_path.join(name))
        .collect();
    if let Some(existing) = files.iter().find(|f| f.exists()) {
        return Err(Error::Output(format!(
            "{}: already there; certs are not overwritten (remove them, or choose another directory)",
            existing.display()
        )));
    }
    let now = time::OffsetDateTime::now_utc();
    let valid = |params: &mut CertificateParams| {
        params.not_before = now - time::Duration::days(1);
        params.not_after = now + time::Duration::days(i64::from(days.max(1)));
    };

    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(fail)?;
    ca.distinguished_name = DistinguishedName::new();
    ca.distinguished_name
        .push(DnType::CommonName, "tracesql cluster CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    valid(&mut ca);
    let ca_key = KeyPair::generate().map_err(fail)?;
    let ca_cert = ca.self_signed(&ca_key).map_err(fail)?;

    let mut names: Vec<String> = vec!["localhost".into(), "127.0.0.1".into()];
    for host in hosts {
        if !names.contains(host) {
            names.push(host.clone());
        }
    }
    let mut node = CertificateParams::new(names).map_err(fail)?;
    node.distinguished_name = DistinguishedName::new();
    node.distinguished_name
        .push(DnType::CommonName, "tracesql cluster node");
    node.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    node.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    valid(&mut node);
    let node_key = KeyPair::generate().map_err(fail)?;
    let issuer = Issuer::from_params(&ca, &ca_key);
    let node_cert = node.signed_by(&node_key, &issuer).map_err(fail)?;

    let contents = [
        ca_cert.pem(),
        ca_key.serialize_pem(),
        node_cert.pem(),
        node_key.serialize_pem(),
    ];
    for (file, text) in files.iter().zip(contents) {
        write_private(file, &text)?;
    }
    Ok(files)
}

/// Writes `text` to a new `path` readable by its owner only (keys among them).
fn write_private(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let fail = |e: std::io::Error| Error::Output(format!("{}: {e}", path.display()));
    let mut file = options.open(path).map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certs_are_written_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("tls");
        let dir = dir.to_str().unwrap();
        let files = write_certs(dir, &["node-1.example".into()], 30).unwrap();
        assert_eq!(files.len(), 4);
        Tls::read(dir).unwrap();
        let again = write_certs(dir, &[], 30).unwrap_err().to_string();
        assert!(again.contains("already there"), "{again}");
    }

    #[test]
    fn a_missing_or_wrong_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap();
        let missing = Tls::read(path).unwrap_err().to_string();
        assert!(missing.contains("ca.pem"), "{missing}");
        std::fs::write(dir.path().join(CA_CERT), "not pem").unwrap();
        let wrong = Tls::read(path).unwrap_err().to_string();
        assert!(wrong.contains("ca.pem holds no PEM CERTIFICATE"), "{wrong}");
    }
}
