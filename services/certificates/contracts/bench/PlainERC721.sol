// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @notice Gas baseline for `bench/contract-gas.ts`: a plain OpenZeppelin ERC721 whose batch mint is a loop
/// of `_mint`, one explicit owner slot and one Transfer event per token. Not deployed anywhere else.
contract PlainERC721 is ERC721 {
    uint256 private _nextTokenId = 1;

    constructor() ERC721("Plain baseline", "PLAIN") {}

    function mintBatch(address to, uint256 quantity) external returns (uint256 firstTokenId) {
        firstTokenId = _nextTokenId;
        for (uint256 i = 0; i < quantity; ++i) {
            _mint(to, firstTokenId + i);
        }
        _nextTokenId = firstTokenId + quantity;
    }
}
