"""A tool both test servers share: the client's media on the way in."""

import base64
import hashlib


def add_sampled_image_digest(server, context_class, types) -> None:
    """`sampled_image_digest`: asks the client for a sample (sampling/createMessage) and answers the sha256 of
    the image it returned (bin on the wire once native bytes are in force)."""

    async def sampled_image_digest(ctx) -> str:
        message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="an image, please"))
        result = await ctx.session.create_message([message], max_tokens=10, related_request_id=ctx.request_id)
        return hashlib.sha256(base64.b64decode(result.content.data)).hexdigest()

    sampled_image_digest.__annotations__["ctx"] = context_class  # how the server knows to pass its context
    server.tool()(sampled_image_digest)


def add_input_image_digest(server, context_class, types) -> None:
    """`input_image_digest` (2026-07-28, on SDKs that have it): the same, as the revision asks for input: an
    `input_required` result embedding sampling/createMessage, then the sha256 of the image in the retried
    request's `inputResponses` (bin on the wire once the server advertised native bytes, SPEC 8.1 rule 7)."""
    if not hasattr(types, "InputRequiredResult"):
        return

    async def input_image_digest(ctx):
        responses = ctx.input_responses
        if not responses:
            message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="an image, please"))
            params = types.CreateMessageRequestParams(messages=[message], max_tokens=10)
            request = types.CreateMessageRequest(method="sampling/createMessage", params=params)
            return types.InputRequiredResult(input_requests={"image": request})
        return types.CallToolResult(content=[types.TextContent(type="text", text=hashlib.sha256(base64.b64decode(responses["image"].content.data)).hexdigest())])

    input_image_digest.__annotations__["ctx"] = context_class
    server.tool()(input_image_digest)
