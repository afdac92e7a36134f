//! `prompts/get`: a prompt's messages, its questions asked on the open request (2025 era) or
//! as input-required results whose retry does the prompt again with the answers replayed
//! (2026-07-28; prompts are not parked).

use std::sync::Arc;

use rmcp::model::{
    GetPromptRequestMethod, GetPromptRequestParams, GetPromptResponse, InputResponses,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::Value;

use super::asking::{Abilities, ElicitAsker};
use super::content;
use super::parked::{ParkedCalls, Prior, Rerun, ResumeError, Resumed};
use super::service::{McpService, caller_of, is_stateless, state_error};
use a2a_runtime_core::ask::Asker;

impl McpService {
    /// A `prompts/get` (see the module docs).
    pub async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if !self.app.catalog.has_prompts() && !self.app.dispatcher.is_changing() {
            return Err(McpError::method_not_found::<GetPromptRequestMethod>());
        }
        let caller = caller_of(context);
        let name = format!("prompts/get:{}", request.name);
        let ttl = self.app.manager.input_limits().timeout();
        // A retry does the prompt again with the answers its state carries.
        let (arguments, replay, offered) = match &request.request_state {
            Some(state) => {
                let responses = request.input_responses.clone();
                let owner = caller.owner();
                match (self.parked).resume(&name, owner, state, responses, None, ttl) {
                    Ok(Resumed::Rerun(Rerun { arguments, answers })) => {
                        (arguments, answers, InputResponses::new())
                    }
                    Ok(Resumed::Unanswered(result)) => {
                        return Ok(GetPromptResponse::InputRequired(result));
                    }
                    // Prompts are never parked.
                    Ok(Resumed::Answered(call)) => {
                        call.cancel.cancel();
                        return Err(state_error(&ResumeError::Gone));
                    }
                    Err(error) => return Err(state_error(&error)),
                }
            }
            None => (
                Value::Object(request.arguments.clone().unwrap_or_default()),
                Vec::new(),
                request.input_responses.clone().unwrap_or_default(),
            ),
        };
        let stateless = is_stateless(context);
        let abilities = Abilities::of(context.client_capabilities().as_ref());
        let get = |asker| {
            let cancel = context.ct.clone();
            let (name, app) = (&request.name, &self.app);
            content::get_prompt(app, name, &arguments, stateless, &caller, asker, cancel)
        };
        if !stateless {
            let asker: Arc<dyn Asker> = Arc::new(ElicitAsker::new(
                context.peer.clone(),
                context.id.clone(),
                self.app.manager.input_limits().clone(),
                abilities,
            ));
            return Ok(GetPromptResponse::Complete(get(Some(asker)).await?));
        }
        if !abilities.any() {
            return Ok(GetPromptResponse::Complete(get(None).await?));
        }
        let (asker, asked) =
            ParkedCalls::rerun_asker(arguments.clone(), Prior { replay, offered }, abilities);
        tokio::select! {
            result = get(Some(asker)) => Ok(GetPromptResponse::Complete(result?)),
            round = asked.slot.asked() => Ok(GetPromptResponse::InputRequired(
                self.parked.rerun_input_required(&asked, round, &name, caller.owner(), ttl),
            )),
        }
    }
}
