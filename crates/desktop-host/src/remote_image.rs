//! A web image of an answer, fetched only when the user asks to see it. The window never loads an image from the
//! network itself (its CSP allows images from the app and `data:` URLs only); on request the host fetches the
//! image, checks its size and that its bytes are a PNG, JPEG, GIF or WebP picture (the declared type is not
//! trusted, and SVG, which can carry script, is refused), and hands it back as a `data:` URL.

use std::time::Duration;

use base64::Engine as _;

/// The largest image shown, in bytes.
pub const MAX_IMAGE_BYTES: usize = 8 * 1024 * 1024;

/// How long the whole fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(20);

/// Why an image is not shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteImageError {
    /// The address is not an http or https URL.
    #[error("only http and https images can be shown, not {url}")]
    NotWeb { url: String },
    /// The request failed before an answer (DNS, connection, TLS, timeout).
    #[error("the image could not be fetched from {host}: {reason}")]
    Fetch { host: String, reason: String },
    /// The server answered with an error status.
    #[error("{host} answered {status} for the image")]
    Status { host: String, status: u16 },
    /// The image is larger than the limit.
    #[error("the image is larger than {} MB", max_bytes / (1024 * 1024))]
    TooLarge { max_bytes: usize },
    /// The bytes are not a PNG, JPEG, GIF or WebP image.
    #[error("{host} sent {declared}, not a PNG, JPEG, GIF or WebP image")]
    NotAnImage { host: String, declared: String },
}

/// Fetches the image at `url` and returns it as a `data:` URL.
pub async fn fetch_image(url: &str) -> Result<String, RemoteImageError> {
    fetch_image_within(url, MAX_IMAGE_BYTES).await
}

/// [`fetch_image`] with another size limit.
pub async fn fetch_image_within(url: &str, max_bytes: usize) -> Result<String, RemoteImageError> {
    let not_web = || RemoteImageError::NotWeb {
        url: url.to_owned(),
    };
    let parsed = reqwest::Url::parse(url).map_err(|_| not_web())?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(not_web());
    }
    let host = parsed.host_str().unwrap_or_default().to_owned();
    let fetch_error = |error: reqwest::Error| RemoteImageError::Fetch {
        host: host.clone(),
        reason: error.without_url().to_string(),
    };
    // reqwest is built without a TLS provider of its own; ring (already in the tree) serves every HTTPS client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .build()
        .map_err(fetch_error)?;
    let mut response = client.get(parsed).send().await.map_err(fetch_error)?;
    if !response.status().is_success() {
        return Err(RemoteImageError::Status {
            host,
            status: response.status().as_u16(),
        });
    }
    if response
        .content_length()
        .is_some_and(|length| length > max_bytes as u64)
    {
        return Err(RemoteImageError::TooLarge { max_bytes });
    }
    let declared = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("no content type")
        .to_owned();
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(fetch_error)? {
        if bytes.len() + chunk.len() > max_bytes {
            return Err(RemoteImageError::TooLarge { max_bytes });
        }
        bytes.extend_from_slice(&chunk);
    }
    let Some(mime) = image_type(&bytes) else {
        return Err(RemoteImageError::NotAnImage { host, declared });
    };
    let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(format!("data:{mime};base64,{encoded}"))
}

/// The MIME type of a PNG, JPEG, GIF or WebP image from its first bytes, or `None`.
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    /// A loopback server answering every request with `status`, `content_type` and `body`; returns its base URL.
    async fn serve(status: &'static str, content_type: &'static str, body: Vec<u8>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let mut request = [0_u8; 4096];
                let _ = stream.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            }
        });
        format!("http://{address}")
    }

    #[tokio::test]
    async fn a_png_comes_back_as_a_data_url() {
        let base = serve("200 OK", "image/png", PNG.to_vec()).await;

        let data_url = fetch_image(&format!("{base}/cat.png")).await.unwrap();

        let encoded = base64::engine::general_purpose::STANDARD.encode(PNG);
        assert_eq!(data_url, format!("data:image/png;base64,{encoded}"));
    }

    #[tokio::test]
    async fn html_or_svg_sent_as_an_image_is_refused() {
        for body in [
            b"<html><script>alert(1)</script></html>".to_vec(),
            b"<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>".to_vec(),
        ] {
            let base = serve("200 OK", "image/png", body).await;

            let error = fetch_image(&format!("{base}/x.png")).await.unwrap_err();

            assert_eq!(
                error,
                RemoteImageError::NotAnImage {
                    host: "127.0.0.1".to_owned(),
                    declared: "image/png".to_owned()
                }
            );
        }
    }

    #[tokio::test]
    async fn an_image_over_the_limit_is_refused() {
        let mut body = PNG.to_vec();
        body.resize(4096, 0);
        let base = serve("200 OK", "image/png", body).await;

        let error = fetch_image_within(&format!("{base}/big.png"), 1024)
            .await
            .unwrap_err();

        assert_eq!(error, RemoteImageError::TooLarge { max_bytes: 1024 });
    }

    #[tokio::test]
    async fn an_error_status_and_other_schemes_are_refused() {
        let base = serve("404 Not Found", "text/plain", b"missing".to_vec()).await;

        let status = fetch_image(&format!("{base}/gone.png")).await.unwrap_err();
        assert_eq!(
            status,
            RemoteImageError::Status {
                host: "127.0.0.1".to_owned(),
                status: 404
            }
        );
        for url in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:image/png;base64,AAAA",
            "cat.png",
        ] {
            assert_eq!(
                fetch_image(url).await.unwrap_err(),
                RemoteImageError::NotWeb {
                    url: url.to_owned()
                }
            );
        }
    }

    #[test]
    fn image_types_come_from_the_bytes() {
        assert_eq!(image_type(PNG), Some("image/png"));
        assert_eq!(image_type(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(image_type(b"GIF89a...."), Some("image/gif"));
        assert_eq!(image_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_type(b"<svg"), None);
        assert_eq!(image_type(b""), None);
    }
}
