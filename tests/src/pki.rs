//! A throwaway certificate authority for TLS tests: a server certificate for 127.0.0.1 and
//! client certificates, written as PEM files into a fresh directory.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

/// A CA that signs server and client certificates.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    /// The CA certificate, PEM.
    pub cert_pem: String,
    dir: PathBuf,
}

impl TestCa {
    /// A new CA named `name`, its files under a fresh temporary directory.
    pub fn new(name: &str) -> Self {
        // Unique per CA, not only per name: tests of one binary run in parallel and may name
        // their CAs alike, and one's certificates must never overwrite another's.
        let dir = crate::scratch_named(&format!("tls-{name}"));
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("CA key");
        let cert = params.self_signed(&key).expect("CA certificate");
        Self {
            issuer: Issuer::new(params, key),
            cert_pem: cert.pem(),
            dir,
        }
    }

    /// Writes `contents` to `name` in the CA's directory; its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, contents).expect("write PEM");
        path
    }

    /// The CA certificate's file.
    pub fn cert_file(&self) -> PathBuf {
        self.write("ca.pem", &self.cert_pem)
    }

    /// A server certificate for `127.0.0.1` and `localhost`: (certificate file, key file).
    pub fn server(&self) -> (PathBuf, PathBuf) {
        let mut params =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .expect("server params");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let (cert, key) = self.sign(params);
        (
            self.write("server.pem", &cert),
            self.write("server-key.pem", &key),
        )
    }

    /// A client certificate whose subject's common name is `name`: certificate and key, PEM,
    /// concatenated (what `reqwest::Identity::from_pem` reads).
    pub fn client(&self, name: &str) -> String {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("client params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let (cert, key) = self.sign(params);
        format!("{cert}{key}")
    }

    fn sign(&self, params: CertificateParams) -> (String, String) {
        let key = KeyPair::generate().expect("leaf key");
        let cert = params
            .signed_by(&key, &self.issuer)
            .expect("leaf certificate");
        (cert.pem(), key.serialize_pem())
    }

    /// The directory holding the files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
