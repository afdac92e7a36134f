"""gRPC over TLS (ALPN `h2`) with grpcio, the official gRPC library: the server's certificate is
checked against the test CA; a client certificate names the caller (the `mtls` scheme), an API
key in the call's metadata does too, and with neither the call is UNAUTHENTICATED.

Usage: python grpc_tls.py ADDRESS CA_PEM_FILE CLIENT_PEM_FILE API_KEY
CLIENT_PEM_FILE holds the client certificate and its key, PEM, one after the other.
"""

import asyncio
import re
import sys

import grpc

from a2a.types import a2a_pb2, a2a_pb2_grpc


def check(condition, what):
    if not condition:
        raise SystemExit(f"grpc tls failure: {what}")


def whoami() -> a2a_pb2.SendMessageRequest:
    message = a2a_pb2.Message(message_id="tls-1", role=a2a_pb2.ROLE_USER)
    message.parts.add().data.struct_value.SetInParent()
    message.metadata.update({"skill": "whoami"})
    return a2a_pb2.SendMessageRequest(message=message)


async def call(credentials, address, metadata):
    async with grpc.aio.secure_channel(address, credentials) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        answer = await stub.SendMessage(whoami(), metadata=(("a2a-version", "1.0"),) + metadata, timeout=20)
        return answer.task.artifacts[0].parts[0].text


async def main(address: str, ca_file: str, client_file: str, api_key: str) -> None:
    ca = open(ca_file, "rb").read()
    pem = open(client_file).read()
    key = re.search(r"-----BEGIN PRIVATE KEY-----.*?-----END PRIVATE KEY-----\n?", pem, re.S).group(0)
    cert = pem.replace(key, "")
    with_cert = grpc.ssl_channel_credentials(ca, key.encode(), cert.encode())
    named = await call(with_cert, address, ())
    check(named.startswith("alice.example via mtls"), f"the certificate names the caller: {named!r}")
    plain = grpc.ssl_channel_credentials(ca)
    keyed = await call(plain, address, (("x-api-key", api_key),))
    check(keyed.startswith("alice via apiKey"), f"the API key names the caller: {keyed!r}")
    try:
        await call(plain, address, ())
        check(False, "a call without credentials was answered")
    except grpc.aio.AioRpcError as error:
        check(error.code() == grpc.StatusCode.UNAUTHENTICATED, f"without credentials: {error.code()}")
    print("grpc tls ok:", named, "|", keyed)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
