// Storing a value into a frame-record member. Most types take `target = value`; a struct or union
// with a const member cannot be assigned, so its value is built in a temporary and copied in.
#pragma once
#include <string>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

namespace c3pre {

// Name of the temporary used by the copying form; never hoisted into a frame record.
constexpr const char *kStoreTemporary = "__c3_v";

bool isAssignable(const clang::ASTContext &Ctx, clang::QualType T);

// An expression that stores `Value` (of type T) into the lvalue `Target`.
std::string storeText(const clang::ASTContext &Ctx, clang::QualType T, const std::string &Target,
                      const std::string &Value);

// `Type Name` in declarator syntax.
std::string declareText(const clang::ASTContext &Ctx, clang::QualType T, const std::string &Name);

// If S is a store of a call result in the copying form, the call; else null.
const clang::CallExpr *copiedCall(const clang::Stmt *S);

}  // namespace c3pre
