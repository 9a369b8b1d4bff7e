//! Sealing: authenticated encryption (XChaCha20-Poly1305) of small server-side state handed
//! to clients, such as list cursors.
//!
//! A sealed token is bound to a purpose string (its associated data), so a token minted for
//! one purpose cannot be replayed for another. Any server process holding the same key can
//! open it, which is what lets any instance behind a load balancer continue a listing.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

/// `bytes` random bytes from the operating system, URL-safe base64 (no padding): for
/// session ids and other unguessable names. Only visible ASCII, as HTTP headers need.
pub fn random_token(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("no randomness available: {e}"))?;
    Ok(URL_SAFE_NO_PAD.encode(buf))
}

/// Environment variable holding the seal key (64 hex digits or base64 of 32 bytes).
pub const SEAL_KEY_ENV: &str = "MCP_SEAL_KEY";

const VERSION: &str = "v1.";

/// A 256-bit sealing key.
#[derive(Clone)]
pub struct SealKey([u8; 32]);

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(..)")
    }
}

impl SealKey {
    /// A key from raw bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        SealKey(bytes)
    }

    /// A fresh random key (tokens then open only in this process).
    pub fn random() -> Result<Self, String> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| format!("no randomness for the seal key: {e}"))?;
        Ok(SealKey(key))
    }

    /// Parse 64 hex digits or base64 (standard or URL-safe) of exactly 32 bytes.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            (0..32)
                .map(|i| {
                    let pair = text.get(2 * i..2 * i + 2).unwrap_or_default();
                    u8::from_str_radix(pair, 16).map_err(|e| e.to_string())
                })
                .collect::<Result<Vec<u8>, String>>()?
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .or_else(|_| URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')))
                .map_err(|_| "a seal key must be 64 hex digits or base64 of 32 bytes".to_owned())?
        };
        let key: [u8; 32] = bytes
            .try_into()
            .map_err(|_| "a seal key must be exactly 32 bytes (64 hex digits)".to_owned())?;
        Ok(SealKey(key))
    }
}

/// Seals and opens tokens with one key.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

/// Why a token did not open. Deliberately uninformative towards the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsealed;

impl Sealer {
    /// A sealer using `key`.
    pub fn new(key: &SealKey) -> Self {
        Sealer {
            cipher: XChaCha20Poly1305::new(&key.0.into()),
        }
    }

    /// Seal `plaintext` for `purpose`.
    pub fn seal(&self, purpose: &str, plaintext: &[u8]) -> Result<String, String> {
        self.seal_with(purpose.as_bytes(), plaintext)
    }

    /// Open a token sealed for `purpose`.
    pub fn open(&self, purpose: &str, token: &str) -> Result<Vec<u8>, Unsealed> {
        self.open_with(purpose.as_bytes(), token, 8192)
    }

    /// Seal `plaintext`, binding it to `bound` (authenticated, not stored in the token).
    pub fn seal_with(&self, bound: &[u8], plaintext: &[u8]) -> Result<String, String> {
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).map_err(|e| format!("no randomness for a nonce: {e}"))?;
        let nonce = XNonce::from(nonce);
        let sealed = self
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: bound,
                },
            )
            .map_err(|_| "sealing failed".to_owned())?;
        let mut out = Vec::with_capacity(24 + sealed.len());
        out.extend_from_slice(nonce.as_slice());
        out.extend_from_slice(&sealed);
        Ok(format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(out)))
    }

    /// Open a token sealed with the same `bound` bytes; tokens longer than `max_len`
    /// characters are refused before any decoding.
    pub fn open_with(
        &self,
        bound: &[u8],
        token: &str,
        max_len: usize,
    ) -> Result<Vec<u8>, Unsealed> {
        let body = token.strip_prefix(VERSION).ok_or(Unsealed)?;
        if body.len() > max_len {
            return Err(Unsealed);
        }
        let raw = URL_SAFE_NO_PAD.decode(body).map_err(|_| Unsealed)?;
        if raw.len() < 24 + 16 {
            return Err(Unsealed);
        }
        let (nonce, sealed) = raw.split_at(24);
        let nonce = XNonce::try_from(nonce).map_err(|_| Unsealed)?;
        self.cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: bound,
                },
            )
            .map_err(|_| Unsealed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_tokens_open_only_for_their_purpose_and_key() {
        let key = SealKey::random().unwrap();
        let sealer = Sealer::new(&key);
        let token = sealer.seal("cursor:tools/list", b"3").unwrap();
        assert_eq!(sealer.open("cursor:tools/list", &token).unwrap(), b"3");
        assert_eq!(sealer.open("cursor:prompts/list", &token), Err(Unsealed));
        let other = Sealer::new(&SealKey::random().unwrap());
        assert_eq!(other.open("cursor:tools/list", &token), Err(Unsealed));
        // S-125: flip one character of the ciphertext: it no longer opens.
        let mut bytes = token.into_bytes();
        let last = bytes.len() - 2;
        bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        assert_eq!(sealer.open("cursor:tools/list", &tampered), Err(Unsealed));
        for junk in ["", "v1.", "v1.!!!", "x", "v2.AAAA"] {
            assert_eq!(sealer.open("cursor:tools/list", junk), Err(Unsealed));
        }
    }

    #[test]
    fn keys_parse_from_hex_and_base64() {
        let hex = "00".repeat(32);
        assert!(SealKey::parse(&hex).is_ok());
        assert!(
            SealKey::parse(&base64::engine::general_purpose::STANDARD.encode([7u8; 32])).is_ok()
        );
        assert!(SealKey::parse("short").is_err());
        assert!(SealKey::parse(&"00".repeat(31)).is_err());
    }
}
