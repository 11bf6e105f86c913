// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";

/// @title ERC-4494: permit (EIP-712 signed approval) for ERC-721 tokens.
/// @dev The ERC-165 identifier of this interface is 0x5604e225.
interface IERC4494 is IERC165 {
    /// @notice Approves `spender` for `tokenId` with the token owner's EIP-712 signature `sig`.
    function permit(address spender, uint256 tokenId, uint256 deadline, bytes memory sig) external;

    /// @notice The current permit nonce of `tokenId`; it changes on every permit use and every transfer.
    function nonces(uint256 tokenId) external view returns (uint256);

    /// @notice The EIP-712 domain separator the permits are signed under.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
