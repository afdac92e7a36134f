"""Bad input over gRPC, sent with grpcio (the official gRPC library) as raw bytes where the
message itself is broken: every call must end in a clear status naming what is wrong, in time.

Usage: python grpc_refusals.py ADDRESS MAX_BODY_BYTES [API_KEY]
ADDRESS is the server's host:port (its card's GRPC interface): an agent's, or a host's root,
which must answer each mistake as an agent does. With API_KEY the server asks who calls: a call
without it is UNAUTHENTICATED, with it the checks below run as that caller.
"""

import asyncio
import sys

import grpc
from google.rpc import error_details_pb2, status_pb2

from a2a.types import a2a_pb2, a2a_pb2_grpc

SERVICE = "/lf.a2a.v1.A2AService/"


def check(condition, what):
    if not condition:
        raise SystemExit(f"grpc refusal failure: {what}")


def details(error: grpc.aio.AioRpcError):
    """The ErrorInfo reason and metadata and the BadRequest fields of a status, if any."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            info, fields = None, []
            for detail in status.details:
                if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                    info = error_details_pb2.ErrorInfo()
                    detail.Unpack(info)
                elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                    bad = error_details_pb2.BadRequest()
                    detail.Unpack(bad)
                    fields = [v.field for v in bad.field_violations]
            return info, fields
    return None, []


async def refused(call, request, metadata, code, what, **options):
    try:
        await call(request, metadata=metadata, timeout=10, **options)
    except grpc.aio.AioRpcError as error:
        check(error.code() == code, f"{what}: {error.code()} {error.details()}")
        check(error.details(), f"{what}: a message says why")
        print(f"{what}: {error.code().name}: {error.details()}")
        return error
    raise SystemExit(f"grpc refusal failure: {what} was accepted")


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


async def main(address: str, max_body: int, api_key: str | None) -> None:
    metadata = (("a2a-version", "1.0"),) + ((("x-api-key", api_key),) if api_key else ())
    async with grpc.aio.insecure_channel(address) as channel:
        raw = lambda method: channel.unary_unary(SERVICE + method)  # noqa: E731
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        if api_key:
            await refused(stub.GetTask, a2a_pb2.GetTaskRequest(id="t"), (("a2a-version", "1.0"),),
                          grpc.StatusCode.UNAUTHENTICATED, "no credentials")

        await refused(raw("SendMessage"), b"\xff\xff\xff\xff", metadata,
                      grpc.StatusCode.INTERNAL, "malformed protobuf")
        oversized = b"\x12" + varint(max_body + 1) + b"a" * (max_body + 1)
        await refused(raw("SendMessage"), oversized, metadata,
                      grpc.StatusCode.OUT_OF_RANGE, "a message over the body limit")
        unknown = await refused(raw("SendMessages"), b"", metadata,
                                grpc.StatusCode.UNIMPLEMENTED, "an unknown method")
        check("SendMessage" in unknown.details(), "the unknown method's refusal names the methods")

        missing = await refused(stub.SendMessage, a2a_pb2.SendMessageRequest(), metadata,
                                grpc.StatusCode.INVALID_ARGUMENT, "a send without its message")
        info, fields = details(missing)
        check(info and info.reason == "INVALID_PARAMS" and info.domain == "a2a-protocol.org", f"ErrorInfo {info}")
        check(fields == ["message"], f"BadRequest names the field: {fields}")
        no_role = a2a_pb2.SendMessageRequest(message=a2a_pb2.Message(message_id="m", parts=[a2a_pb2.Part(text="hi")]))
        error = await refused(stub.SendMessage, no_role, metadata, grpc.StatusCode.INVALID_ARGUMENT, "a message without its role")
        check(details(error)[1] == ["message.role"], f"the role is named: {details(error)}")

        # A compressed message: this server offers no compression (tonic's answer at an agent,
        # and the same at a host's root).
        await refused(stub.GetTask, a2a_pb2.GetTaskRequest(id="t"), metadata,
                      grpc.StatusCode.UNIMPLEMENTED, "a gzip-compressed message",
                      compression=grpc.Compression.Gzip)
        empty = await refused(stub.GetTask, a2a_pb2.GetTaskRequest(id=""), metadata,
                              grpc.StatusCode.INVALID_ARGUMENT, "an empty task id")
        check(details(empty)[0].reason == "INVALID_PARAMS", f"ErrorInfo {details(empty)}")
        lost = await refused(stub.GetTask, a2a_pb2.GetTaskRequest(id="no-such-task"), metadata,
                             grpc.StatusCode.NOT_FOUND, "an unknown task")
        info, _ = details(lost)
        check(info.reason == "TASK_NOT_FOUND" and info.metadata["taskId"] == "no-such-task", f"ErrorInfo {info}")
        old = tuple((k, "0.3" if k == "a2a-version" else v) for k, v in metadata)
        version = await refused(stub.GetTask, a2a_pb2.GetTaskRequest(id="t"), old,
                                grpc.StatusCode.FAILED_PRECONDITION, "A2A-Version 0.3 on the 1.0 service")
        check(details(version)[0].reason == "VERSION_NOT_SUPPORTED", f"ErrorInfo {details(version)}")
    print("grpc refusals ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None))
