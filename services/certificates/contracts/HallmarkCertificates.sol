// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Metadata} from "@openzeppelin/contracts/token/ERC721/extensions/IERC721Metadata.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {IERC2309} from "@openzeppelin/contracts/interfaces/IERC2309.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {IERC4494} from "./interfaces/IERC4494.sol";

/**
 * @title Hallmark certificates
 * @notice ERC-721 certificates minted in batches, each batch anchoring the Merkle root of its certificates'
 * metadata hashes on chain.
 *
 * Ownership scheme ("lazy owners with run checkpoints"). Minting a batch writes two new storage slots (its
 * batch record and its run), updates three (token counter, run-start bitmap word, holder's balance; a new
 * bitmap word every 256 ids) and adds two slots per 256 tokens past the batch's second 256-id word, never
 * one slot per token:
 *  - `_tokenSlots[id]` is the token's explicit state, packed: owner (bits 0-159) | permit nonce
 *    (bits 160-223) | BURNED flag (bit 255). It stays 0 until the token is first touched (transfer, permit,
 *    burn); a 0 slot means "still held by the holder of its mint run".
 *  - A "run" is a range of consecutive ids held by one address since mint. `_runs[start]` packs the run's
 *    holder (bits 0-159) | its batch's first token id (160-207) | the batch's last token id (208-255), and
 *    `_runStartBits` is a bitmap (one bit per token id, 256 ids per word) marking every run start.
 *  - A batch opens a run at its first id and checkpoints it again at every multiple of 256 inside the
 *    batch except the first one (the word right after the run's start word needs none). So a minted `id`
 *    has a set bit at or below it in its own bitmap word, or else the highest set bit of the word before is
 *    its run's start: the owner of an untouched token is at most two bitmap words + one run read away,
 *    whatever the token's position in the batch and however large the batch. No backward scan (contrast
 *    ERC721A). A batch of ≤ 256 tokens therefore never writes a checkpoint.
 * One slot per batch is both the idempotency record and the Merkle root anchor: `_batchByKey[batchKey]`
 * holds the batch's Merkle root with its low 48 bits replaced by the batch's first token id. Non-zero (ids
 * start at 1), so a used key is recognised; the 208 high bits of the root commit to it (matching them with
 * another tree is a 2^208 search), and the first token id ties the record to the tokens' run, so
 * `verifyCertificate(tokenId, batchKey, ...)` proves a certificate against its own batch only. The full root,
 * the quantity and the holder are in the batch's `BatchMinted` event (indexed by key and first token id); the
 * quantity and the holder are also in the run (`batchByKey`, `batchOf`).
 * Events of a batch, chosen per batch by its `perTokenEvents` argument (the relayer passes the enterprise's
 * setting): either ONE ERC-2309 `ConsecutiveTransfer(first, last, 0, to)` for the whole batch and no `Transfer`
 * for its tokens, as ERC-2309 requires, or one ERC-721 `Transfer(0, to, id)` per token (what every marketplace
 * indexer reads; ERC-2309 outside the constructor is not strictly ERC-721, and some indexers miss such
 * tokens). A single token's transfer, permit transfer and burn always emit the ERC-721 `Transfer`. A contract
 * deployed with `perTokenTransferEvents = true` never emits `ConsecutiveTransfer`: every batch is per token
 * whatever its argument (`perTokenTransferEvents()`), and `supportsInterface(CONSECUTIVE_TRANSFER_INTERFACE_ID)`
 * answers whether this deployment may emit ERC-2309 at all.
 * Metadata (ERC-4906): `setBaseURI` emits `BatchMetadataUpdate(1, max)`; every other change of what a token's
 * metadata answers happens off chain, and the relayer announces it with `announceMetadataUpdate` (ranges of
 * ids: `MetadataUpdate(id)` for a single one, `BatchMetadataUpdate(from, to)` otherwise).
 * Gas (measured by the tests and `pnpm bench contract-gas`): with ERC-2309 the batch's cost is its storage
 * (two new slots per batch, a new bitmap word per 256 ids, two slots per checkpoint) plus the transaction:
 * 90.6k for a batch of 100, 17.1k more for the batch that opens a new bitmap word (≈ 970 per token in steady
 * state), ≈ 240 per token at 1,000; with per-token events ≈ 2.2k per token (the events dominate). First
 * transfer of any token ≈ 81.6k either way (≈ 83.9k in a run's second word: one more bitmap word read).
 *
 * Merkle leaves: `keccak256(bytes.concat(keccak256(abi.encode(uint256 index, bytes32 metadataHash))))` where
 * `index` is the token's position in its batch (`tokenId - firstTokenId`), pairs hashed sorted
 * (OpenZeppelin `StandardMerkleTree` with leaf encoding `["uint256", "bytes32"]`). The index rather than the
 * token id makes the root computable before the transaction assigns ids.
 *
 * Burn (Hallmark rule 13): the token owner, its approved address, an operator approved for all of the
 * owner's tokens, a `DEFAULT_ADMIN_ROLE` holder or the contract owner; nobody else.
 */
contract HallmarkCertificates is
    IERC721Metadata,
    IERC4906,
    IERC2309,
    IERC4494,
    IERC721Errors,
    AccessControl,
    Ownable,
    EIP712
{
    using Strings for uint256;

    /// @notice May mint batches and maintain the allowlist.
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    /// @notice EIP-712 type of an ERC-4494 approval permit.
    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address spender,uint256 tokenId,uint256 nonce,uint256 deadline)");

    /// @notice EIP-712 type of a transfer permit: the holder authorises moving the token to `to`; anyone
    /// (a relayer paying the gas) may submit it.
    bytes32 public constant TRANSFER_PERMIT_TYPEHASH =
        keccak256("TransferPermit(address to,uint256 tokenId,uint256 nonce,uint256 deadline)");

    /// @notice Largest batch one `mintBatch` accepts (10,000 tokens ≈ 20M gas).
    uint256 public constant MAX_BATCH_SIZE = 10_000;

    /// @notice ERC-2309 defines no ERC-165 id (its interface is one event). Hallmark answers `supportsInterface`
    /// for the first four bytes of the event's signature hash, keccak256("ConsecutiveTransfer(uint256,uint256,
    /// address,address)"), exactly when this deployment mints with `ConsecutiveTransfer`, so an indexer can ask.
    bytes4 public constant CONSECUTIVE_TRANSFER_INTERFACE_ID = 0xdeaa91b6;

    uint256 private constant _BURNED = 1 << 255;
    uint256 private constant _NONCE_MASK = type(uint64).max;
    uint256 private constant _MAX_TOKEN_ID = type(uint48).max;
    /// The bits of a batch record holding the Merkle root (the low 48 hold the first token id).
    uint256 private constant _ROOT_MASK = ~_MAX_TOKEN_ID;
    /// keccak256("Transfer(address,address,uint256)")
    bytes32 private constant _TRANSFER_EVENT_SIGNATURE =
        0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef;

    /// Set at deployment: one `Transfer` per minted token instead of one `ConsecutiveTransfer` per batch.
    bool private immutable _perTokenTransferEvents;

    string private _name;
    string private _symbol;
    string private _baseTokenURI;

    // One slot: written once per mint, once per burn.
    uint48 private _nextTokenId = 1;
    uint64 private _burnedCount;

    mapping(uint256 tokenId => uint256 packed) private _tokenSlots;
    mapping(address owner => uint256) private _balances;
    mapping(uint256 tokenId => address) private _tokenApprovals;
    mapping(address owner => mapping(address operator => bool)) private _operatorApprovals;

    mapping(uint256 word => uint256 bits) private _runStartBits;
    mapping(uint256 startTokenId => uint256 packed) private _runs;

    /// The batch record: firstTokenId (bits 0-47) | the Merkle root's bits 48-255 (idempotency + root anchor).
    mapping(bytes32 batchKey => uint256 packed) private _batchByKey;

    mapping(address account => bool) private _allowlist;

    /// @notice A batch of `quantity` tokens `firstTokenId`.. was minted to `to` under idempotency key `batchKey`.
    event BatchMinted(
        bytes32 indexed batchKey,
        uint256 indexed firstTokenId,
        uint256 quantity,
        bytes32 merkleRoot,
        address indexed to
    );
    /// @notice `account` was added to (`allowed`) or removed from the allowlist.
    event AllowlistUpdated(address indexed account, bool allowed);
    /// @notice The base of every `tokenURI` changed.
    event BaseURIUpdated(string baseURI);

    /// @notice `batchKey` was already used by the batch starting at `firstTokenId`: it is minted, never twice.
    error HallmarkBatchKeyUsed(bytes32 batchKey, uint256 firstTokenId);
    error HallmarkInvalidBatchKey();
    error HallmarkInvalidQuantity(uint256 quantity);
    error HallmarkTokenIdOverflow();
    /// @notice `caller` is none of the five burn authorities of `tokenId`.
    error HallmarkUnauthorizedBurn(address caller, uint256 tokenId);
    error HallmarkNotAdminOrMinter(address account);
    error HallmarkInvalidAddress(address account);
    error HallmarkPermitExpired(uint256 deadline);
    error HallmarkInvalidPermitSignature(address expectedSigner);
    /// @notice A metadata update names no minted id range (`from` 0, `from` > `to`, or `to` not minted yet).
    error HallmarkInvalidTokenRange(uint256 fromTokenId, uint256 toTokenId);
    /// @notice `announceMetadataUpdate` got arrays of different lengths.
    error HallmarkRangeLengthMismatch();

    modifier onlyAdminOrMinter() {
        address caller = _msgSender();
        if (!hasRole(DEFAULT_ADMIN_ROLE, caller) && !hasRole(MINTER_ROLE, caller)) {
            revert HallmarkNotAdminOrMinter(caller);
        }
        _;
    }

    /// @param initialOwner the contract owner (`Ownable`), a burn authority
    /// @param admin holder of `DEFAULT_ADMIN_ROLE` (grants roles, sets the base URI, burns)
    /// @param minter initial `MINTER_ROLE` holder (the relayer), or zero for none
    /// @param perTokenTransferEvents_ true: batches emit one `Transfer` per token (for indexers without ERC-2309);
    /// false (Hallmark's default): one ERC-2309 `ConsecutiveTransfer` per batch
    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        address initialOwner,
        address admin,
        address minter,
        bool perTokenTransferEvents_
    ) Ownable(initialOwner) EIP712("HallmarkCertificates", "1") {
        if (admin == address(0)) revert HallmarkInvalidAddress(address(0));
        _perTokenTransferEvents = perTokenTransferEvents_;
        _name = name_;
        _symbol = symbol_;
        _baseTokenURI = baseURI_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        if (minter != address(0)) _grantRole(MINTER_ROLE, minter);
    }

    // ------------------------------------------------------------------------------------------------
    // ERC-165

    function supportsInterface(bytes4 interfaceId) public view override(AccessControl, IERC165) returns (bool) {
        return
            interfaceId == type(IERC721).interfaceId ||
            interfaceId == type(IERC721Metadata).interfaceId ||
            interfaceId == type(IERC4494).interfaceId ||
            interfaceId == bytes4(0x49064906) || // ERC-4906 metadata update events
            (interfaceId == CONSECUTIVE_TRANSFER_INTERFACE_ID && !_perTokenTransferEvents) || // ERC-2309
            super.supportsInterface(interfaceId);
    }

    /// @notice Whether batches emit one `Transfer` per token (true) or one ERC-2309 `ConsecutiveTransfer` (false).
    function perTokenTransferEvents() external view returns (bool) {
        return _perTokenTransferEvents;
    }

    // ------------------------------------------------------------------------------------------------
    // Batch minting

    /**
     * @notice Mints `quantity` consecutive tokens to `to`, records the batch with `merkleRoot` and
     * consumes the idempotency key `batchKey`: a second call with the same key reverts, so a re-sent batch
     * can never mint twice. Emits {BatchMinted} and, for the tokens, one ERC-2309
     * `ConsecutiveTransfer(first, last, 0, to)`, or one ERC-721 `Transfer` per token when `perTokenEvents` is
     * true or the deployment is per-token. Tokens are minted without the ERC-721 receiver check (holders are
     * externally owned accounts).
     * @return firstTokenId the id of the batch's first token; the others follow consecutively
     */
    function mintBatch(
        address to,
        uint256 quantity,
        bytes32 merkleRoot,
        bytes32 batchKey,
        bool perTokenEvents
    ) external onlyRole(MINTER_ROLE) returns (uint256 firstTokenId) {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        if (quantity == 0 || quantity > MAX_BATCH_SIZE) revert HallmarkInvalidQuantity(quantity);
        if (batchKey == bytes32(0)) revert HallmarkInvalidBatchKey();
        uint256 used = _batchByKey[batchKey];
        if (used != 0) revert HallmarkBatchKeyUsed(batchKey, used & _MAX_TOKEN_ID);

        firstTokenId = _nextTokenId;
        uint256 lastTokenId = firstTokenId + quantity - 1;
        if (lastTokenId >= _MAX_TOKEN_ID) revert HallmarkTokenIdOverflow(); // ids and the next id fit 48 bits
        _nextTokenId = uint48(lastTokenId + 1);
        _batchByKey[batchKey] = (uint256(merkleRoot) & _ROOT_MASK) | firstTokenId;
        unchecked {
            _balances[to] += quantity;
        }

        // The run and its checkpoints: at the first id, then at every multiple of 256 inside the batch but
        // the first (`_runOf` finds ids of the next word through the start word; the checkpointed words are
        // still untouched: ids only grow).
        uint256 run = uint256(uint160(to)) | (firstTokenId << 160) | (lastTokenId << 208);
        _runs[firstTokenId] = run;
        _runStartBits[firstTokenId >> 8] |= 1 << (firstTokenId & 0xff);
        for (uint256 checkpoint = (firstTokenId | 0xff) + 257; checkpoint <= lastTokenId; checkpoint += 256) {
            _runs[checkpoint] = run;
            _runStartBits[checkpoint >> 8] = 1;
        }

        emit BatchMinted(batchKey, firstTokenId, quantity, merkleRoot, to);
        if (!perTokenEvents && !_perTokenTransferEvents) {
            emit ConsecutiveTransfer(firstTokenId, lastTokenId, address(0), to);
            return firstTokenId;
        }
        uint256 holder = uint160(to);
        assembly ("memory-safe") {
            let end := add(lastTokenId, 1)
            for {
                let id := firstTokenId
            } lt(id, end) {
                id := add(id, 1)
            } {
                log4(0, 0, _TRANSFER_EVENT_SIGNATURE, 0, holder, id)
            }
        }
    }

    /// @notice The id the next minted token will get.
    function nextTokenId() external view returns (uint256) {
        return _nextTokenId;
    }

    /// @notice Tokens minted minus tokens burned.
    function totalSupply() external view returns (uint256) {
        return uint256(_nextTokenId) - 1 - _burnedCount;
    }

    /**
     * @notice Whether the idempotency key `batchKey` was consumed, and by which batch (its holder at mint:
     * `to`). `merkleRootHigh` is the batch's Merkle root with its low 48 bits cleared: what the chain stores
     * of it (the full root is in the batch's `BatchMinted` event; compare `root & ~(2^48 - 1)`).
     */
    function batchByKey(
        bytes32 batchKey
    )
        external
        view
        returns (bool minted, uint256 firstTokenId, uint256 quantity, address to, bytes32 merkleRootHigh)
    {
        uint256 packed = _batchByKey[batchKey];
        if (packed == 0) return (false, 0, 0, address(0), bytes32(0));
        firstTokenId = packed & _MAX_TOKEN_ID;
        uint256 run = _runs[firstTokenId];
        return (true, firstTokenId, (run >> 208) - firstTokenId + 1, address(uint160(run)), bytes32(packed & _ROOT_MASK));
    }

    /// @notice The batch `tokenId` was minted in (its holder at mint: `to`). Its key and Merkle root are in
    /// the batch's `BatchMinted` event (indexed by `firstTokenId`). Reverts for burned and nonexistent tokens.
    function batchOf(uint256 tokenId) external view returns (uint256 firstTokenId, uint256 quantity, address to) {
        _requireOwned(tokenId);
        uint256 run = _runOf(tokenId);
        firstTokenId = (run >> 160) & _MAX_TOKEN_ID;
        return (firstTokenId, (run >> 208) - firstTokenId + 1, address(uint160(run)));
    }

    // ------------------------------------------------------------------------------------------------
    // Merkle proof of a certificate's metadata

    /**
     * @notice Whether `metadataHash` is the metadata hash the batch of `tokenId` committed to for this token.
     * `batchKey` names the token's batch (its `BatchMinted` event has it); false when it names another batch
     * or none. Leaf: `keccak256(bytes.concat(keccak256(abi.encode(tokenId - firstTokenId, metadataHash))))`;
     * the root the proof leads to must match the batch's anchored root (its 208 high bits, see the header).
     * Reverts for burned and nonexistent tokens.
     */
    function verifyCertificate(
        uint256 tokenId,
        bytes32 batchKey,
        bytes32 metadataHash,
        bytes32[] calldata proof
    ) external view returns (bool) {
        _requireOwned(tokenId);
        uint256 firstTokenId = (_runOf(tokenId) >> 160) & _MAX_TOKEN_ID;
        uint256 record = _batchByKey[batchKey];
        if ((record & _MAX_TOKEN_ID) != firstTokenId) return false;
        bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(tokenId - firstTokenId, metadataHash))));
        return (uint256(MerkleProof.processProofCalldata(proof, leaf)) & _ROOT_MASK) == (record & _ROOT_MASK);
    }

    // ------------------------------------------------------------------------------------------------
    // ERC-721

    function balanceOf(address owner_) public view returns (uint256) {
        if (owner_ == address(0)) revert ERC721InvalidOwner(address(0));
        return _balances[owner_];
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        return _requireOwned(tokenId);
    }

    /// @notice Whether `tokenId` is minted and not burned.
    function exists(uint256 tokenId) external view returns (bool) {
        return _ownerOf(tokenId) != address(0);
    }

    function name() public view returns (string memory) {
        return _name;
    }

    function symbol() public view returns (string memory) {
        return _symbol;
    }

    /// @notice `baseURI` + decimal token id: the service's public metadata JSON of the certificate.
    function tokenURI(uint256 tokenId) public view returns (string memory) {
        _requireOwned(tokenId);
        string memory base = _baseTokenURI;
        return bytes(base).length > 0 ? string.concat(base, tokenId.toString()) : "";
    }

    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
    }

    function setBaseURI(string calldata newBaseURI) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _baseTokenURI = newBaseURI;
        emit BaseURIUpdated(newBaseURI);
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    /**
     * @notice ERC-4906: the metadata of tokens `fromTokenIds[i]`..`toTokenIds[i]` changed off chain (warranty,
     * stolen flag, service records, …), so marketplaces fetch it again. Emits `MetadataUpdate(id)` for a range
     * of one id, `BatchMetadataUpdate(from, to)` otherwise. Admin or minter (the relayer) only; every range
     * must name minted ids. Repeating an announcement is harmless (a marketplace refreshes twice).
     */
    function announceMetadataUpdate(
        uint256[] calldata fromTokenIds,
        uint256[] calldata toTokenIds
    ) external onlyAdminOrMinter {
        if (fromTokenIds.length != toTokenIds.length) revert HallmarkRangeLengthMismatch();
        uint256 next = _nextTokenId;
        for (uint256 i = 0; i < fromTokenIds.length; ++i) {
            uint256 from = fromTokenIds[i];
            uint256 to = toTokenIds[i];
            if (from == 0 || from > to || to >= next) revert HallmarkInvalidTokenRange(from, to);
            if (from == to) emit MetadataUpdate(from);
            else emit BatchMetadataUpdate(from, to);
        }
    }

    function approve(address to, uint256 tokenId) public {
        address holder = _requireOwned(tokenId);
        address caller = _msgSender();
        if (holder != caller && !isApprovedForAll(holder, caller)) revert ERC721InvalidApprover(caller);
        _tokenApprovals[tokenId] = to;
        emit Approval(holder, to, tokenId);
    }

    function getApproved(uint256 tokenId) public view returns (address) {
        _requireOwned(tokenId);
        return _tokenApprovals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) public {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        address caller = _msgSender();
        _operatorApprovals[caller][operator] = approved;
        emit ApprovalForAll(caller, operator, approved);
    }

    function isApprovedForAll(address owner_, address operator) public view returns (bool) {
        return _operatorApprovals[owner_][operator];
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        address previousOwner = _update(to, tokenId, _msgSender());
        if (previousOwner != from) revert ERC721IncorrectOwner(from, tokenId, previousOwner);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) public {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        ERC721Utils.checkOnERC721Received(_msgSender(), from, to, tokenId, data);
    }

    // ------------------------------------------------------------------------------------------------
    // ERC-4494 permit and transfer by signature

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @notice The permit nonce of `tokenId`: incremented by every permit use and every transfer, so a
    /// signature can be used once and dies when the token moves. Reverts for burned and nonexistent tokens.
    function nonces(uint256 tokenId) external view returns (uint256) {
        _requireOwned(tokenId);
        return (_tokenSlots[tokenId] >> 160) & _NONCE_MASK;
    }

    /**
     * @notice ERC-4494: approves `spender` for `tokenId` on the token owner's EIP-712 signature over
     * `Permit(spender, tokenId, nonce, deadline)` (EOA or ERC-1271 contract owner). Consumes the nonce.
     */
    function permit(address spender, uint256 tokenId, uint256 deadline, bytes memory sig) external {
        (address holder, uint256 slot) = _consumePermit(
            keccak256(abi.encode(PERMIT_TYPEHASH, spender, tokenId, _nonceOf(tokenId), deadline)),
            tokenId,
            deadline,
            sig
        );
        // Nonce + 1, owner made explicit (it may have been the run holder).
        _tokenSlots[tokenId] = uint256(uint160(holder)) | ((((slot >> 160) + 1) & _NONCE_MASK) << 160);
        _tokenApprovals[tokenId] = spender;
        emit Approval(holder, spender, tokenId);
    }

    /**
     * @notice Moves `tokenId` from its owner to `to` on the owner's EIP-712 signature over
     * `TransferPermit(to, tokenId, nonce, deadline)`; anyone may submit it (a relayer pays the gas).
     * No receiver check (like `transferFrom`). The transfer consumes the nonce.
     */
    function transferWithPermit(address to, uint256 tokenId, uint256 deadline, bytes memory sig) external {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        _consumePermit(
            keccak256(abi.encode(TRANSFER_PERMIT_TYPEHASH, to, tokenId, _nonceOf(tokenId), deadline)),
            tokenId,
            deadline,
            sig
        );
        _update(to, tokenId, address(0));
    }

    // ------------------------------------------------------------------------------------------------
    // Burn (rule 13)

    /**
     * @notice Destroys `tokenId`. Allowed to: the token owner, the address approved for the token, an
     * operator approved for all of the owner's tokens, a `DEFAULT_ADMIN_ROLE` holder, the contract owner.
     * Clears the approval and emits Transfer(owner, 0, tokenId); the token can no longer be queried.
     */
    function burn(uint256 tokenId) external {
        address holder = _requireOwned(tokenId);
        address caller = _msgSender();
        if (!_isAuthorized(holder, caller, tokenId) && caller != owner() && !hasRole(DEFAULT_ADMIN_ROLE, caller)) {
            revert HallmarkUnauthorizedBurn(caller, tokenId);
        }
        _update(address(0), tokenId, address(0));
    }

    // ------------------------------------------------------------------------------------------------
    // Allowlist

    function addToAllowlist(address[] calldata accounts) external onlyAdminOrMinter {
        _setAllowlisted(accounts, true);
    }

    function removeFromAllowlist(address[] calldata accounts) external onlyAdminOrMinter {
        _setAllowlisted(accounts, false);
    }

    function isAllowlisted(address account) external view returns (bool) {
        return _allowlist[account];
    }

    // ------------------------------------------------------------------------------------------------
    // Internals

    /// @dev Emits {AllowlistUpdated} only for accounts whose state changes.
    function _setAllowlisted(address[] calldata accounts, bool allowed) private {
        for (uint256 i = 0; i < accounts.length; ++i) {
            address account = accounts[i];
            if (account == address(0)) revert HallmarkInvalidAddress(address(0));
            if (_allowlist[account] != allowed) {
                _allowlist[account] = allowed;
                emit AllowlistUpdated(account, allowed);
            }
        }
    }

    /// @dev The run covering `tokenId` (0 if none): the highest run start ≤ `tokenId` in its bitmap word or,
    /// when that word has none, the highest in the word before (a run's second word has no checkpoint),
    /// provided `tokenId` is not past the run's batch.
    function _runOf(uint256 tokenId) private view returns (uint256 run) {
        uint256 word = tokenId >> 8;
        uint256 bits = _runStartBits[word] & (type(uint256).max >> (255 - (tokenId & 0xff)));
        if (bits == 0) {
            if (word == 0) return 0;
            word -= 1;
            bits = _runStartBits[word];
            if (bits == 0) return 0;
        }
        run = _runs[(word << 8) | Math.log2(bits)];
        if (tokenId > (run >> 208)) return 0;
    }

    /// @dev The owner of `tokenId` given its packed slot, or 0 when burned or not minted.
    function _ownerFromSlot(uint256 tokenId, uint256 slot) private view returns (address) {
        if (slot != 0) return (slot & _BURNED) != 0 ? address(0) : address(uint160(slot));
        return address(uint160(_runOf(tokenId)));
    }

    function _ownerOf(uint256 tokenId) internal view returns (address) {
        return _ownerFromSlot(tokenId, _tokenSlots[tokenId]);
    }

    function _nonceOf(uint256 tokenId) private view returns (uint256) {
        return (_tokenSlots[tokenId] >> 160) & _NONCE_MASK;
    }

    function _requireOwned(uint256 tokenId) internal view returns (address holder) {
        holder = _ownerOf(tokenId);
        if (holder == address(0)) revert ERC721NonexistentToken(tokenId);
    }

    function _isAuthorized(address holder, address spender, uint256 tokenId) internal view returns (bool) {
        return
            spender != address(0) &&
            (holder == spender || isApprovedForAll(holder, spender) || _tokenApprovals[tokenId] == spender);
    }

    /// @dev Checks the deadline and the owner's signature of the EIP-712 struct hash; the caller bumps the nonce.
    function _consumePermit(
        bytes32 structHash,
        uint256 tokenId,
        uint256 deadline,
        bytes memory sig
    ) private view returns (address holder, uint256 slot) {
        if (block.timestamp > deadline) revert HallmarkPermitExpired(deadline);
        slot = _tokenSlots[tokenId];
        holder = _ownerFromSlot(tokenId, slot);
        if (holder == address(0)) revert ERC721NonexistentToken(tokenId);
        if (!SignatureChecker.isValidSignatureNow(holder, _hashTypedDataV4(structHash), sig)) {
            revert HallmarkInvalidPermitSignature(holder);
        }
    }

    /**
     * @dev Moves `tokenId` from its current owner to `to` (0 = burn), checking that `auth` may (unless 0).
     * Clears the token approval, bumps the permit nonce, makes the owner explicit. Never mints.
     */
    function _update(address to, uint256 tokenId, address auth) internal returns (address from) {
        uint256 slot = _tokenSlots[tokenId];
        from = _ownerFromSlot(tokenId, slot);
        if (from == address(0)) revert ERC721NonexistentToken(tokenId);
        if (auth != address(0) && !_isAuthorized(from, auth, tokenId)) {
            revert ERC721InsufficientApproval(auth, tokenId);
        }
        if (_tokenApprovals[tokenId] != address(0)) delete _tokenApprovals[tokenId];
        uint256 nonceBits = (((slot >> 160) + 1) & _NONCE_MASK) << 160;
        unchecked {
            _balances[from] -= 1;
        }
        if (to == address(0)) {
            _tokenSlots[tokenId] = _BURNED | nonceBits;
            unchecked {
                _burnedCount += 1;
            }
        } else {
            unchecked {
                _balances[to] += 1;
            }
            _tokenSlots[tokenId] = uint256(uint160(to)) | nonceBits;
        }
        emit Transfer(from, to, tokenId);
    }
}
