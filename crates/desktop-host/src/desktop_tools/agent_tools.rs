//! The desktop tools as `AgentTool`s: thin wrappers that parse arguments, call the plain functions and turn a
//! [`ToolFailure`] into the loop's error result (its safe message is all the model sees).

use std::sync::Arc;

use futures_util::future::BoxFuture;
use pi_agent::{
    AgentTool, AgentToolResult, SharedAgentTool, ToolError, ToolExecutionMode, ToolUpdateSink,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::desktop_paths::KnownFolder;
use crate::desktop_tools::context::{DesktopToolContext, ToolOutput};
use crate::desktop_tools::failure::{FailureKind, ToolFailure};
use crate::desktop_tools::list_files::{ListFilesArgs, list_files_parameters, list_folder_files};
use crate::desktop_tools::read_document::{
    ReadDocumentArgs, folder_argument, read_document_parameters, read_folder_document,
};
use crate::language::Language;

/// The chapter's tool name.
pub const LIST_DOWNLOAD_FILES: &str = "list_download_files";
/// The listing of the other known folders.
pub const LIST_FOLDER: &str = "list_folder";
/// Reading a document's text.
pub const READ_DOCUMENT: &str = "read_document";

/// The three desktop tools over one shared context, in the order the model sees them.
pub fn desktop_agent_tools(context: &DesktopToolContext) -> Vec<SharedAgentTool> {
    vec![
        Arc::new(DesktopTool::new(
            context.clone(),
            DesktopToolKind::ListDownloadFiles,
        )),
        Arc::new(DesktopTool::new(
            context.clone(),
            DesktopToolKind::ListFolder,
        )),
        Arc::new(DesktopTool::new(
            context.clone(),
            DesktopToolKind::ReadDocument,
        )),
    ]
}

/// Which desktop tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DesktopToolKind {
    /// `list_download_files`.
    ListDownloadFiles,
    /// `list_folder`.
    ListFolder,
    /// `read_document`.
    ReadDocument,
}

/// One desktop tool as an `AgentTool`.
#[derive(Debug)]
pub struct DesktopTool {
    context: DesktopToolContext,
    kind: DesktopToolKind,
    parameters: Value,
}

impl DesktopTool {
    /// The tool of `kind` over `context`.
    pub fn new(context: DesktopToolContext, kind: DesktopToolKind) -> DesktopTool {
        let parameters = match kind {
            DesktopToolKind::ListDownloadFiles => list_files_parameters(false),
            DesktopToolKind::ListFolder => list_files_parameters(true),
            DesktopToolKind::ReadDocument => read_document_parameters(),
        };
        DesktopTool {
            context,
            kind,
            parameters,
        }
    }

    async fn run(
        &self,
        arguments: Value,
        cancel_token: CancellationToken,
    ) -> Result<ToolOutput, ToolFailure> {
        match self.kind {
            DesktopToolKind::ListDownloadFiles => {
                let args: ListFilesArgs =
                    parse_arguments(&self.context, KnownFolder::Downloads, arguments)?;
                list_folder_files(
                    &self.context,
                    LIST_DOWNLOAD_FILES,
                    KnownFolder::Downloads,
                    args,
                    &cancel_token,
                )
                .await
            }
            DesktopToolKind::ListFolder => {
                let args: ListFilesArgs =
                    parse_arguments(&self.context, KnownFolder::Documents, arguments)?;
                let folder = folder_argument(&self.context, args.folder.as_deref(), None)?;
                list_folder_files(&self.context, LIST_FOLDER, folder, args, &cancel_token).await
            }
            DesktopToolKind::ReadDocument => {
                let args: ReadDocumentArgs =
                    parse_arguments(&self.context, KnownFolder::Downloads, arguments)?;
                read_folder_document(&self.context, READ_DOCUMENT, args, &cancel_token).await
            }
        }
    }
}

fn parse_arguments<T: DeserializeOwned>(
    context: &DesktopToolContext,
    folder: KnownFolder,
    arguments: Value,
) -> Result<T, ToolFailure> {
    serde_json::from_value(arguments).map_err(|error| {
        // serde's text names the field and the expected type; it holds no path.
        context.refuse(
            folder,
            FailureKind::InvalidArguments {
                zh: error.to_string(),
                en: error.to_string(),
            },
        )
    })
}

impl AgentTool for DesktopTool {
    fn name(&self) -> &str {
        match self.kind {
            DesktopToolKind::ListDownloadFiles => LIST_DOWNLOAD_FILES,
            DesktopToolKind::ListFolder => LIST_FOLDER,
            DesktopToolKind::ReadDocument => READ_DOCUMENT,
        }
    }

    fn label(&self) -> &str {
        let language = self.context.language;
        match self.kind {
            DesktopToolKind::ListDownloadFiles => language.pick("查询下载目录", "List Downloads"),
            DesktopToolKind::ListFolder => language.pick("查询文件夹", "List a folder"),
            DesktopToolKind::ReadDocument => language.pick("读取文档", "Read a document"),
        }
    }

    fn description(&self) -> &str {
        match (self.kind, self.context.language) {
            (DesktopToolKind::ListDownloadFiles, Language::Zh) => {
                "列出当前用户下载目录中的文件。用户询问下载目录内容时使用。可按扩展名、名称、修改时间筛选，\
                 可递归，按时间或名称排序；结果较多时用 nextCursor 翻页。"
            }
            (DesktopToolKind::ListDownloadFiles, Language::En) => {
                "List the files in the user's Downloads folder. Use it when the user asks what is in Downloads. \
                 Filters: extensions, name text, modified time; optional recursion; sorted newest first or by \
                 name; pass nextCursor back as cursor for more."
            }
            (DesktopToolKind::ListFolder, Language::Zh) => {
                "列出用户的文档、桌面、图片、音乐或视频文件夹中的文件，筛选和翻页方式与 list_download_files 相同。"
            }
            (DesktopToolKind::ListFolder, Language::En) => {
                "List the files in one of the user's folders (documents, desktop, pictures, music, videos), with \
                 the same filters and paging as list_download_files."
            }
            (DesktopToolKind::ReadDocument, Language::Zh) => {
                "读取用户文件夹中纯文本、Markdown 或 PDF 文件的文字。path 使用列表给出的相对路径；\
                 可指定 PDF 页码范围和字符范围，内容较长时用 nextStartChar 继续读取。"
            }
            (DesktopToolKind::ReadDocument, Language::En) => {
                "Read the text of a plain text, Markdown or PDF file in one of the user's folders. path is the \
                 relative path a listing returned; optional PDF page range and character range; continue long \
                 texts from nextStartChar."
            }
        }
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        None
    }

    fn execute(
        &self,
        _tool_call_id: String,
        arguments: Value,
        cancel: CancellationToken,
        _on_update: ToolUpdateSink,
    ) -> BoxFuture<'_, Result<AgentToolResult, ToolError>> {
        Box::pin(async move {
            let output = self
                .run(arguments, cancel)
                .await
                .map_err(|failure| ToolError::new(failure.to_string()))?;
            Ok(AgentToolResult::text(output.content, output.details))
        })
    }
}
