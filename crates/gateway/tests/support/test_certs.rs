//! Certificates for TLS tests, generated when the test runs (never checked in): a CA, a server
//! certificate for `localhost` and `127.0.0.1`, and client certificates whose subject CN is the
//! user. Shared by the gateway, client and ferrobase tests through `#[path]`.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use std::path::{Path, PathBuf};

/// PEM files in a directory: `ca.pem`, `server.pem`, `server.key`, and per user
/// `USER.pem`/`USER.key`.
pub struct TestPki {
    pub dir: PathBuf,
    ca: rcgen::Certificate,
    ca_key: KeyPair,
}

impl TestPki {
    /// A new CA and server certificate under `dir`.
    pub fn new(dir: &Path) -> TestPki {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "ferrobase test CA");
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_key = KeyPair::generate().unwrap();
        let ca = params.self_signed(&ca_key).unwrap();
        std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
        let pki = TestPki {
            dir: dir.to_path_buf(),
            ca,
            ca_key,
        };
        let mut server =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        server
            .distinguished_name
            .push(DnType::CommonName, "ferrobase");
        server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        pki.issue(server, "server");
        pki
    }

    fn issue(&self, params: CertificateParams, stem: &str) {
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.ca, &self.ca_key).unwrap();
        std::fs::write(self.dir.join(format!("{stem}.pem")), cert.pem()).unwrap();
        std::fs::write(self.dir.join(format!("{stem}.key")), key.serialize_pem()).unwrap();
    }

    /// Issues a client certificate with subject CN `user`; returns (cert, key) paths.
    pub fn client(&self, user: &str) -> (PathBuf, PathBuf) {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, user);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.issue(params, user);
        (
            self.path(&format!("{user}.pem")),
            self.path(&format!("{user}.key")),
        )
    }

    /// A file of this PKI.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}
